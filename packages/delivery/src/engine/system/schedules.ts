import type { Queue } from 'bullmq'
import type { Logger } from 'pino'

/** A recurring job: a BullMQ job scheduler with a stable id, so every process upserts the same one. */
export interface Schedule {
  id: string
  everyMs?: number
  /** Cron pattern, read in `timeZone`. */
  pattern?: string
  timeZone?: string
}

/** BullMQ's repeat options for a schedule: a cron pattern always carries its zone (UTC when unset). */
export function repeatOptionsOf(schedule: Schedule): { pattern: string; tz: string } | { every: number } {
  return schedule.pattern
    ? { pattern: schedule.pattern, tz: schedule.timeZone ?? 'UTC' }
    : { every: schedule.everyMs ?? 60_000 }
}

/**
 * Upserts every schedule under its id. Idempotent: the same id with the same options keeps one
 * scheduler and one next job, so this may run at boot, on a timer and after a reconnect alike.
 * Logged per scheduler at boot; `quiet` (the periodic re-registration) logs at debug only.
 */
export async function registerSchedules(
  queue: Pick<Queue, 'upsertJobScheduler'>,
  schedules: readonly Schedule[],
  logger: Logger,
  options: { quiet?: boolean } = {},
): Promise<void> {
  for (const schedule of schedules) {
    const repeat = repeatOptionsOf(schedule)
    await queue.upsertJobScheduler(schedule.id, repeat, {
      name: schedule.id,
      opts: { removeOnComplete: true, removeOnFail: { count: 100 } },
    })
    if (options.quiet) logger.debug({ scheduler: schedule.id, ...repeat }, 'job scheduler re-registered')
    else logger.info({ scheduler: schedule.id, ...repeat }, 'job scheduler registered')
  }
}
