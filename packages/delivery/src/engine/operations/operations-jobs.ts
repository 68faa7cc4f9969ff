import { rollUpDays } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { createRollupStore } from '@fairlane/db/queries/rollup'
import type { Job } from 'bullmq'
import type { Logger } from 'pino'
import { runNightlyCleanup } from './nightly-cleanup'

/** Stable scheduler ids: every worker process upserts the same two, so each runs once per period. */
export const CLEANUP_SCHEDULER_ID = 'nightly-cleanup'
export const ROLLUP_SCHEDULER_ID = 'tenant-daily-rollup'

/**
 * When they run, in SCHEDULE_TIME_ZONE. The rollup runs shortly after midnight, when yesterday has
 * ended; the cleanup at a quiet hour. Both are safe to run at any time and more than once.
 */
export const OPERATIONS_PATTERNS = {
  [CLEANUP_SCHEDULER_ID]: '15 3 * * *',
  [ROLLUP_SCHEDULER_ID]: '10 0 * * *',
} as const

export interface OperationsSettings {
  /** SCHEDULE_TIME_ZONE. */
  timeZone: string
  /** AUDIT_RETENTION_DAYS. */
  auditRetentionDays: number
  /** MESSAGE_BODY_RETENTION_DAYS and MESSAGE_BODY_RETENTION_DAYS_CRITICAL; the schema's defaults when absent. */
  bodyRetention?: { days: number; criticalDays: number }
  /** EVENT_RETENTION_DAYS; the schema's default when absent. */
  eventRetentionDays?: number
  /** MESSAGE_RETENTION_DAYS; the schema's default when absent. */
  messageRetentionDays?: number
}

export const DEFAULT_OPERATIONS_SETTINGS: OperationsSettings = { timeZone: 'UTC', auditRetentionDays: 365 }
export const DEFAULT_BODY_RETENTION = { days: 30, criticalDays: 7 }
export const DEFAULT_EVENT_RETENTION_DAYS = 30
export const DEFAULT_MESSAGE_RETENTION_DAYS = 90

export function operationsHandlers(
  settings: OperationsSettings,
  deps: { db: Database; logger: Logger },
): Record<keyof typeof OPERATIONS_PATTERNS, (job: Job) => Promise<unknown>> {
  const clock = { now: () => new Date() }
  return {
    [CLEANUP_SCHEDULER_ID]: (job) =>
      runNightlyCleanup({
        db: deps.db,
        auditRetentionDays: settings.auditRetentionDays,
        bodyRetention: settings.bodyRetention ?? DEFAULT_BODY_RETENTION,
        eventRetentionDays: settings.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS,
        messageRetention: {
          days: settings.messageRetentionDays ?? DEFAULT_MESSAGE_RETENTION_DAYS,
          timeZone: settings.timeZone,
        },
        clock,
        logger: deps.logger.child({ job: job.name, jobId: job.id }),
      }),
    [ROLLUP_SCHEDULER_ID]: async (job) => {
      const result = await rollUpDays({
        store: createRollupStore(deps.db),
        timeZone: settings.timeZone,
        clock,
      })
      deps.logger.info(
        { job: job.name, jobId: job.id, days: result.days, timeZone: settings.timeZone },
        result.days.length > 0 ? 'daily rollup done' : 'daily rollup: no ended day after the cursor',
      )
      return { days: result.days.length }
    },
  }
}
