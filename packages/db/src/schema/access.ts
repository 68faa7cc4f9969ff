import { sql } from 'drizzle-orm'
import { check, index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import { users } from './auth'
import { createdAt, oneOf, timestamptz } from './columns'
import { MEMBERSHIP_ROLES, type MembershipRole } from './literals'
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
    createdAt: createdAt(),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [
    index('api_keys_tenant_created_idx').on(t.tenantId, t.createdAt),
    // A hex digest, so a raw key can never be stored here by mistake.
    check('api_keys_key_hash_check', sql`${t.keyHash} ~ '^[0-9a-f]{64}$'`),
  ],
)

export type Membership = typeof memberships.$inferSelect
export type NewMembership = typeof memberships.$inferInsert
export type ApiKey = typeof apiKeys.$inferSelect
export type NewApiKey = typeof apiKeys.$inferInsert
