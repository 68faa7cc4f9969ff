import { bigint, date, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { createdAt, timestamptz, updatedAt } from './columns'
import { tenantId } from './tenant-column'

/** Progress of cursor-driven jobs (e.g. the daily rollup): the job resumes after `cursor_at`. */
export const jobCursors = pgTable('job_cursors', {
  name: text('name').primaryKey(),
  cursorAt: timestamptz('cursor_at').notNull(),
  updatedAt: updatedAt(),
})

/** One row per tenant and ended day, overwritten whole by the rollup so a rerun is harmless. */
export const tenantDailyStats = pgTable(
  'tenant_daily_stats',
  {
    tenantId: tenantId(),
    day: date('day', { mode: 'string' }).notNull(),
    sent: integer('sent').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    suppressed: integer('suppressed').notNull().default(0),
    deferred: integer('deferred').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ name: 'tenant_daily_stats_pk', columns: [t.tenantId, t.day] })],
)

/**
 * What a tenant had accepted, per UTC day and lane, counted in the transaction that accepts (every way
 * in: API, batch, SMTP, the app, campaign dispatch): the daily and monthly quotas and the usage report
 * read it. One row per tenant, day and lane.
 */
export const tenantUsageDays = pgTable(
  'tenant_usage_days',
  {
    tenantId: tenantId(),
    day: date('day', { mode: 'string' }).notNull(),
    lane: text('lane').notNull(),
    accepted: integer('accepted').notNull().default(0),
    acceptedBytes: bigint('accepted_bytes', { mode: 'number' }).notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ name: 'tenant_usage_days_pk', columns: [t.tenantId, t.day, t.lane] })],
)

/**
 * Sends the token bucket deferred, per tenant, lane and minute (UTC): each worker adds what it counted
 * every few seconds, so the daily rollup can report deferrals for a day cut in any time zone.
 */
export const tenantDeferralCounts = pgTable(
  'tenant_deferral_counts',
  {
    tenantId: tenantId(),
    minute: timestamptz('minute').notNull(),
    lane: text('lane').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [
    primaryKey({ name: 'tenant_deferral_counts_pk', columns: [t.tenantId, t.minute, t.lane] }),
    // The rollup reads one day of minutes for every tenant; the cleanup deletes old minutes.
    index('tenant_deferral_counts_minute_idx').on(t.minute),
  ],
)

/** Every deliberate admin action (replay, plan change), with who, why and on what. Append-only. */
export const adminAuditLog = pgTable(
  'admin_audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    reason: text('reason'),
    details: jsonb('details').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('admin_audit_log_created_at_idx').on(t.createdAt),
    index('admin_audit_log_target_idx').on(t.targetType, t.targetId),
  ],
)

/**
 * What a tenant's own users did that needs a record of who and why (a resubscribe on the person's
 * request). Separate from `admin_audit_log`, which is the platform operator's and has no tenant: these
 * entries belong to the tenant (its queries take `tenant_id`, deleting the tenant deletes them).
 * `actor_user_id` has no foreign key and `actor` keeps the email as it was: the entry outlives the
 * user. Append-only.
 */
export const tenantAuditLog = pgTable(
  'tenant_audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId(),
    actorUserId: text('actor_user_id'),
    actor: text('actor').notNull(),
    /** `<resource>.<verb>`: `contact.resubscribe`. */
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    reason: text('reason'),
    details: jsonb('details').$type<Record<string, unknown>>(),
    /** The client address the action came from (the web entry's, TRUSTED_PROXIES applied); null: a job. */
    ipAddress: text('ip_address'),
    createdAt: createdAt(),
  },
  (t) => [
    index('tenant_audit_log_tenant_target_idx').on(t.tenantId, t.targetType, t.targetId),
    // The audit page: one tenant's entries, newest first, whatever the filters.
    index('tenant_audit_log_tenant_id_idx').on(t.tenantId, t.id),
    // Retention (AUDIT_RETENTION_DAYS) deletes the oldest entries of every tenant in batches.
    index('tenant_audit_log_created_at_idx').on(t.createdAt),
  ],
)

export type JobCursor = typeof jobCursors.$inferSelect
export type NewJobCursor = typeof jobCursors.$inferInsert
export type TenantDailyStats = typeof tenantDailyStats.$inferSelect
export type NewTenantDailyStats = typeof tenantDailyStats.$inferInsert
export type TenantDeferralCount = typeof tenantDeferralCounts.$inferSelect
export type AdminAuditLogEntry = typeof adminAuditLog.$inferSelect
export type NewAdminAuditLogEntry = typeof adminAuditLog.$inferInsert
export type TenantAuditLogEntry = typeof tenantAuditLog.$inferSelect
export type NewTenantAuditLogEntry = typeof tenantAuditLog.$inferInsert

/**
 * Leaderships held as leases (the pacer's): a holder renews `expires_at` each tick; another process
 * takes the row only once it has expired. No session state, so it works through a transaction-mode
 * pooler (PgBouncer), where a session advisory lock would not.
 */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  /** Bumped on every takeover: a holder that lost the lease can tell (fencing). */
  term: bigint('term', { mode: 'number' }).notNull().default(1),
  acquiredAt: timestamptz('acquired_at').notNull(),
  expiresAt: timestamptz('expires_at').notNull(),
})
