import { sql } from 'drizzle-orm'
import { check, index, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { users } from './auth'
import { createdAt, oneOf, timestamptz } from './columns'
import { API_KEY_SCOPES, type ApiKeyScope, MEMBERSHIP_ROLES, type MembershipRole } from './literals'
import { tenantId } from './tenant-column'

/** Who may act for a tenant in the UI. */
export const memberships = pgTable(
  'memberships',
  {
    tenantId: tenantId(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MembershipRole>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'memberships_pk', columns: [t.tenantId, t.userId] }),
    // "Which tenants may this user open?" runs on every signed-in request.
    index('memberships_user_id_idx').on(t.userId),
    check('memberships_role_check', oneOf(t.role, MEMBERSHIP_ROLES)),
  ],
)

/**
 * API keys for `/api/v1`. Only the SHA-256 of the whole key is stored: a leaked table does not leak
 * keys. The visible `prefix` finds the row in one unique lookup, then the hash is compared.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    prefix: text('prefix').notNull().unique('api_keys_prefix_unique'),
    keyHash: text('key_hash').notNull(),
    /** `full`: every `/api/v1` route; `sending`: send messages and read their status only. */
    scope: text('scope').$type<ApiKeyScope>().notNull().default('full'),
    /**
     * When set, the key sends only from this domain (a lower-case name, one of the tenant's verified
     * domains when the key was made). A name, not a foreign key: removing the domain must not widen
     * the key, and a From on a removed domain fails the verified-domain check anyway.
     */
    domain: text('domain'),
    /** Who made it (no foreign key: the key outlives its maker); null for keys made before 0019. */
    createdByUserId: text('created_by_user_id'),
    createdAt: createdAt(),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [
    index('api_keys_tenant_created_idx').on(t.tenantId, t.createdAt),
    // A hex digest, so a raw key can never be stored here by mistake.
    check('api_keys_key_hash_check', sql`${t.keyHash} ~ '^[0-9a-f]{64}$'`),
    check('api_keys_scope_check', oneOf(t.scope, API_KEY_SCOPES)),
    check('api_keys_domain_check', sql`${t.domain} = lower(${t.domain})`),
  ],
)

/**
 * An invitation to join a tenant with a role. The link carries a random token; only its SHA-256 is
 * stored. Single use (`accepted_at`), revocable (`revoked_at`), and good until `expires_at`
 * (7 days). At most one open invitation per tenant and address: inviting again replaces it.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    /** Lower-case; the accepting user's email need not match (the link is the credential). */
    email: text('email').notNull(),
    role: text('role').$type<MembershipRole>().notNull(),
    tokenHash: text('token_hash').notNull().unique('invitations_token_hash_unique'),
    invitedByUserId: text('invited_by_user_id'),
    /** The inviter's email then, shown to the invitee and kept when the inviter is gone. */
    invitedBy: text('invited_by').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
    acceptedAt: timestamptz('accepted_at'),
    acceptedByUserId: text('accepted_by_user_id'),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [
    index('invitations_tenant_created_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('invitations_open_unique')
      .on(t.tenantId, t.email)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
    check('invitations_role_check', oneOf(t.role, MEMBERSHIP_ROLES)),
    check('invitations_email_check', sql`${t.email} = lower(${t.email})`),
    check('invitations_token_hash_check', sql`${t.tokenHash} ~ '^[0-9a-f]{64}$'`),
  ],
)

export type Membership = typeof memberships.$inferSelect
export type NewMembership = typeof memberships.$inferInsert
export type ApiKey = typeof apiKeys.$inferSelect
export type NewApiKey = typeof apiKeys.$inferInsert
export type Invitation = typeof invitations.$inferSelect
export type NewInvitation = typeof invitations.$inferInsert
