import { expireMessages } from '@fairlane/core'
import { IDEMPOTENCY_KEY_TTL_MS } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import {
  type CleanupBatch,
  clearMessageBodies,
  deleteAuditEntriesBefore,
  deletePublishedOutbox,
  deleteTenantAuditEntriesBefore,
  releaseExpiredIdempotencyKeys,
} from '@fairlane/db/queries/cleanup'
import { deleteDeferralCountsBefore } from '@fairlane/db/queries/deferral-counts'
import { deleteMessageEventsBefore } from '@fairlane/db/queries/message-events'
import { createMessageRetentionStore } from '@fairlane/db/queries/message-retention'
import { deleteWebhookDeliveriesBefore } from '@fairlane/db/queries/webhook-outbox'
import type { Logger } from 'pino'

/** Published outbox rows are kept this long: enough to trace a message's publish in an incident. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000
/** Per-minute deferral counts outlive the daily rollup that sums them by far; the rollup row stays. */
export const DEFERRAL_COUNT_RETENTION_MS = 35 * 24 * 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000
/** Rows per statement: each delete holds its locks for milliseconds, never long enough to stall the relay. */
export const CLEANUP_BATCH_SIZE = 5_000

export interface CleanupDeps {
  db: Database
  auditRetentionDays: number
  /** MESSAGE_BODY_RETENTION_DAYS (default and bulk lanes) and MESSAGE_BODY_RETENTION_DAYS_CRITICAL. */
  bodyRetention: { days: number; criticalDays: number }
  /** EVENT_RETENTION_DAYS: messages' events older than this are deleted. */
  eventRetentionDays: number
  /**
   * MESSAGE_RETENTION_DAYS, and SCHEDULE_TIME_ZONE (the rollup's days): finished messages past it go,
   * once their day is in the daily rollup. Absent: messages are kept (tests of the other steps).
   */
  messageRetention?: { days: number; timeZone: string }
  clock: { now(): Date }
  logger: Logger
  batchSize?: number
}

export interface CleanupResult {
  outboxDeleted: number
  idempotencyKeysReleased: number
  /** Admin audit entries past AUDIT_RETENTION_DAYS. */
  auditEntriesDeleted: number
  /** Tenant audit entries (every tenant's) past the same. */
  tenantAuditEntriesDeleted: number
  deferralCountsDeleted: number
  messageBodiesCleared: number
  messageEventsDeleted: number
  /** Webhook deliveries past EVENT_RETENTION_DAYS, with their attempts. */
  webhookDeliveriesDeleted: number
  /** Finished messages past MESSAGE_RETENTION_DAYS, with their events, clicks and webhook deliveries. */
  messagesDeleted: number
}

/**
 * The nightly cleanup: published outbox rows past a week, idempotency keys past their 24 h window
 * (the messages stay), audit entries past AUDIT_RETENTION_DAYS, message bodies past their retention
 * (critical mail — login codes, reset links — sooner than the rest), messages' events past
 * EVENT_RETENTION_DAYS, webhook deliveries (with their attempts) past the same, and finished messages
 * past MESSAGE_RETENTION_DAYS whose day the rollup has counted (`expireMessages`). Each in batches
 * until one comes back short; a cleanup that dies half-way just leaves less for the next night.
 */
export async function runNightlyCleanup(deps: CleanupDeps): Promise<CleanupResult> {
  const now = deps.clock.now().getTime()
  const limit = deps.batchSize ?? CLEANUP_BATCH_SIZE
  const result: CleanupResult = {
    outboxDeleted: await inBatches(
      (batch) => deletePublishedOutbox(deps.db, batch),
      new Date(now - OUTBOX_RETENTION_MS),
      limit,
    ),
    idempotencyKeysReleased: await inBatches(
      (batch) => releaseExpiredIdempotencyKeys(deps.db, batch),
      new Date(now - IDEMPOTENCY_KEY_TTL_MS),
      limit,
    ),
    auditEntriesDeleted: await inBatches(
      (batch) => deleteAuditEntriesBefore(deps.db, batch),
      new Date(now - deps.auditRetentionDays * 24 * 60 * 60 * 1000),
      limit,
    ),
    tenantAuditEntriesDeleted: await inBatches(
      (batch) => deleteTenantAuditEntriesBefore(deps.db, batch),
      new Date(now - deps.auditRetentionDays * DAY_MS),
      limit,
    ),
    deferralCountsDeleted: await inBatches(
      (batch) => deleteDeferralCountsBefore(deps.db, batch),
      new Date(now - DEFERRAL_COUNT_RETENTION_MS),
      limit,
    ),
    messageBodiesCleared:
      (await inBatches(
        (batch) => clearMessageBodies(deps.db, { ...batch, lanes: ['critical'], now: deps.clock.now() }),
        new Date(now - deps.bodyRetention.criticalDays * DAY_MS),
        limit,
      )) +
      (await inBatches(
        (batch) =>
          clearMessageBodies(deps.db, { ...batch, lanes: ['default', 'bulk'], now: deps.clock.now() }),
        new Date(now - deps.bodyRetention.days * DAY_MS),
        limit,
      )),
    messageEventsDeleted: await inBatches(
      (batch) => deleteMessageEventsBefore(deps.db, batch),
      new Date(now - deps.eventRetentionDays * DAY_MS),
      limit,
    ),
    webhookDeliveriesDeleted: await inBatches(
      (batch) => deleteWebhookDeliveriesBefore(deps.db, batch),
      new Date(now - deps.eventRetentionDays * DAY_MS),
      limit,
    ),
    messagesDeleted: deps.messageRetention
      ? (
          await expireMessages({
            store: createMessageRetentionStore(deps.db),
            clock: deps.clock,
            retentionDays: deps.messageRetention.days,
            timeZone: deps.messageRetention.timeZone,
            batchSize: limit,
          })
        ).deleted
      : 0,
  }
  deps.logger.info(result, 'nightly cleanup done')
  return result
}

async function inBatches(
  step: (batch: CleanupBatch) => Promise<number>,
  before: Date,
  limit: number,
): Promise<number> {
  let total = 0
  for (;;) {
    const changed = await step({ before, limit })
    total += changed
    if (changed < limit) return total
  }
}
