import { sql } from 'drizzle-orm'
import { check, index, integer, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { createdAt, oneOf, timestamptz, updatedAt } from './columns'
import { DOMAIN_STATUSES, type DomainRecordPurpose, type DomainStatus } from './literals'
import { tenantId } from './tenant-column'

/**
 * The DKIM rotation state (`DkimRotationState` in core) as stored: instants as ISO strings. Which key
 * signs is decided only by `nextRotationState`; this column is its memory.
 */
export interface StoredDkimRotation {
  active: { selector: string; createdAt: string } | null
  pending: { selector: string; createdAt: string } | null
  retired: { selector: string; retiredAt: string; removableAt: string }[]
  activeFailedChecks: number
}

/** The last check of one record, as the tenant sees it (`found` says what a wrong record holds). */
export interface StoredRecordCheck {
  purpose: DomainRecordPurpose
  /** The DKIM selector for `dkim` checks: a rotating domain has two. */
  selector?: string
  status: 'pending' | 'verified' | 'failed'
  found?: string
  reason?: string
  checkedAt: string
  /** Consecutive conclusive checks that did not verify (a verified domain fails after the second). */
  failedChecks?: number
}

/**
 * A domain a tenant sends from. The name is stored lowercase in ASCII (punycode), registrable, and
 * may be added by more than one tenant: each row then has its own DKIM keys, and a row that was not
 * first must also verify an ownership TXT record (`ownership_token`), so no tenant takes over a
 * domain another tenant proved.
 */
export const sendingDomains = pgTable(
  'sending_domains',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    status: text('status').$type<DomainStatus>().notNull().default('pending'),
    /** The return-path host is `<label>.<name>`, a CNAME to RETURN_PATH_HOST. */
    returnPathLabel: text('return_path_label').notNull(),
    /** Set when another tenant already had this domain: the value of the required ownership TXT. */
    ownershipToken: text('ownership_token'),
    dkim: jsonb('dkim').$type<StoredDkimRotation>().notNull(),
    /** The last result of each record's check, shown with the records. */
    checks: jsonb('checks').$type<StoredRecordCheck[]>().notNull().default(sql`'[]'::jsonb`),
    /** Why the domain is failed or its mail held, in words the tenant can act on. */
    failureReason: text('failure_reason'),
    /** Consecutive scheduled checks; the scheduler's backoff and the 72-hour pending window use it. */
    checkCount: integer('check_count').notNull().default(0),
    verifiedAt: timestamptz('verified_at'),
    lastCheckedAt: timestamptz('last_checked_at'),
    /** When the scheduler looks the records up next; null: no more scheduled checks (given up). */
    nextCheckAt: timestamptz('next_check_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('sending_domains_status_check', oneOf(t.status, DOMAIN_STATUSES)),
    unique('sending_domains_tenant_name_unique').on(t.tenantId, t.name),
    // "Does another tenant already have this domain?" when one is added.
    index('sending_domains_name_idx').on(t.name),
    index('sending_domains_next_check_idx').on(t.nextCheckAt).where(sql`${t.nextCheckAt} is not null`),
  ],
)

/**
 * A domain's DKIM key pairs, one per selector. The private key is AES-256-GCM ciphertext under the
 * DKIM_ENCRYPTION_KEY named by `encryption_key_id`; it never leaves the worker decrypted and no API
 * returns it. Keys are kept after rotation while their record is listed as removable.
 */
export const dkimKeys = pgTable(
  'dkim_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    domainId: uuid('domain_id')
      .notNull()
      .references(() => sendingDomains.id, { onDelete: 'cascade' }),
    selector: text('selector').notNull(),
    /** Base64 SubjectPublicKeyInfo: the `p=` of the DNS record. */
    publicKey: text('public_key').notNull(),
    /** `<iv>.<auth tag>.<ciphertext>` in base64url; see `encryption_key_id`. */
    privateKeyCiphertext: text('private_key_ciphertext').notNull(),
    encryptionKeyId: text('encryption_key_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('dkim_keys_domain_selector_unique').on(t.domainId, t.selector),
    index('dkim_keys_tenant_idx').on(t.tenantId),
  ],
)

export type SendingDomain = typeof sendingDomains.$inferSelect
export type NewSendingDomain = typeof sendingDomains.$inferInsert
export type DkimKeyRow = typeof dkimKeys.$inferSelect
