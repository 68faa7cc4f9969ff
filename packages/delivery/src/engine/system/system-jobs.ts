import { type Job, UnrecoverableError } from 'bullmq'
import { z } from 'zod'
import { DOMAIN_CHECKS_SCHEDULER_ID } from '../domains/domain-checks-jobs'
import { CLEANUP_SCHEDULER_ID, ROLLUP_SCHEDULER_ID } from '../operations/operations-jobs'
import { WEBHOOK_HEALTH_SCHEDULER_ID } from '../webhooks/endpoint-health-jobs'
import type { Schedule } from './schedules'

/** The dispatcher's job scheduler id (stable: every worker process upserts the same schedule). */
export const DISPATCH_SCHEDULER_ID = 'campaign-dispatch'
/** A campaign's wake-up at its send time (one-off, delayed; not a scheduler). */
export const CAMPAIGN_DUE_JOB = 'campaign-due'
/** Checks the dead-letter queue is whole, and restores it from PostgreSQL when Redis lost it. */
export const DEAD_LETTER_RESTORE_SCHEDULER_ID = 'dead-letter-restore'
/** The reputation guardrail: every tenant's bounce and complaint rates against the thresholds. */
export const REPUTATION_CHECK_SCHEDULER_ID = 'reputation-check'

/** Every job of the system queue, by its name (a scheduler's jobs carry its id as their name). */
export const SYSTEM_JOB_IDS = [
  DISPATCH_SCHEDULER_ID,
  CAMPAIGN_DUE_JOB,
  DEAD_LETTER_RESTORE_SCHEDULER_ID,
  CLEANUP_SCHEDULER_ID,
  ROLLUP_SCHEDULER_ID,
  DOMAIN_CHECKS_SCHEDULER_ID,
  WEBHOOK_HEALTH_SCHEDULER_ID,
  REPUTATION_CHECK_SCHEDULER_ID,
] as const
export type SystemJobId = (typeof SYSTEM_JOB_IDS)[number]

/**
 * The version every system job's data carries. Scheduler jobs are added by BullMQ with no data, and
 * wake-ups added before the field existed lack it: both read as version 1. Bump it (and accept both)
 * when a payload's shape changes while jobs are in flight.
 */
const version = { v: z.literal(1).default(1) }

/** What each system job carries: the light part, which producers import without the handlers. */
export const SYSTEM_JOB_PAYLOADS = {
  [DISPATCH_SCHEDULER_ID]: z.object(version),
  [CAMPAIGN_DUE_JOB]: z.object({ ...version, campaignId: z.string().min(1) }),
  [DEAD_LETTER_RESTORE_SCHEDULER_ID]: z.object(version),
  [CLEANUP_SCHEDULER_ID]: z.object(version),
  [ROLLUP_SCHEDULER_ID]: z.object(version),
  [DOMAIN_CHECKS_SCHEDULER_ID]: z.object(version),
  [WEBHOOK_HEALTH_SCHEDULER_ID]: z.object(version),
  [REPUTATION_CHECK_SCHEDULER_ID]: z.object(version),
} satisfies Record<SystemJobId, z.ZodType<{ v: 1 }>>

export type SystemJobPayload<Id extends SystemJobId> = z.output<(typeof SYSTEM_JOB_PAYLOADS)[Id]>

/** A system job: its payload schema, its schedule when it recurs (absent: added one-off), its handler. */
export interface SystemJobSpec<Payload extends z.ZodType> {
  payload: Payload
  schedule?: Omit<Schedule, 'id'>
  handle(payload: z.output<Payload>, job: Job): Promise<unknown>
}

/** Every system job with its handler: a job left without one does not compile. */
export type SystemJobCatalog = { [Id in SystemJobId]: SystemJobSpec<(typeof SYSTEM_JOB_PAYLOADS)[Id]> }

/** The catalog's recurring jobs, as the system worker upserts them. */
export function systemSchedules(catalog: SystemJobCatalog): Schedule[] {
  return SYSTEM_JOB_IDS.flatMap((id) => {
    const schedule = catalog[id].schedule
    return schedule ? [{ id, ...schedule }] : []
  })
}

/**
 * The system worker's handlers: each parses its job's data first. A payload it cannot read fails for
 * good (`UnrecoverableError`): retrying cannot make it readable.
 */
export function systemHandlers(
  catalog: SystemJobCatalog,
): Record<SystemJobId, (job: Job) => Promise<unknown>> {
  const handlers = {} as Record<SystemJobId, (job: Job) => Promise<unknown>>
  for (const id of SYSTEM_JOB_IDS) {
    const spec: SystemJobSpec<z.ZodType> = catalog[id]
    handlers[id] = async (job) => {
      const parsed = spec.payload.safeParse(job.data ?? {})
      if (!parsed.success) {
        throw new UnrecoverableError(
          `malformed ${id} payload: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
        )
      }
      return spec.handle(parsed.data, job)
    }
  }
  return handlers
}
