import { createWorkerConnection, SYSTEM_QUEUE } from '@fairlane/queue'
import { type Job, type Queue, Worker } from 'bullmq'
import type { Logger } from 'pino'

/** A recurring job: a BullMQ job scheduler with a stable id, so every process upserts the same one. */
export interface Schedule {
  id: string
  everyMs?: number
  /** Cron pattern, read in `timeZone`. */
  pattern?: string
  timeZone?: string
}

export interface SystemWorkerOptions {
  redisUrl: string
  prefix: string
  queue: Pick<Queue, 'upsertJobScheduler'>
  /** Job name → what to do; a job scheduler's jobs carry its id as their name. */
  handlers: Record<string, (job: Job) => Promise<unknown>>
  schedules: Schedule[]
  concurrency: number
  logger: Logger
}

export interface SystemWorker {
  close(): Promise<void>
}

/**
 * The `system` queue's worker: schedulers (campaign dispatch now; cleanup and rollups later) and
 * one-off wake-ups. Schedulers are upserted under stable ids, so restarts and extra worker
 * processes keep one schedule each, and listed in the boot log with their period and time zone.
 */
export async function startSystemWorker(options: SystemWorkerOptions): Promise<SystemWorker> {
  for (const schedule of options.schedules) {
    const repeat = schedule.pattern
      ? { pattern: schedule.pattern, tz: schedule.timeZone ?? 'UTC' }
      : { every: schedule.everyMs ?? 60_000 }
    await options.queue.upsertJobScheduler(schedule.id, repeat, {
      name: schedule.id,
      opts: { removeOnComplete: true, removeOnFail: { count: 100 } },
    })
    options.logger.info({ scheduler: schedule.id, ...repeat }, 'job scheduler registered')
  }
  const connection = createWorkerConnection(options.redisUrl, 'worker-system', options.logger)
  const worker = new Worker(
    SYSTEM_QUEUE,
    async (job) => {
      const handler = options.handlers[job.name]
      if (!handler) throw new Error(`no handler for system job ${JSON.stringify(job.name)}`)
      return handler(job)
    },
    { connection, prefix: options.prefix, concurrency: options.concurrency },
  )
  worker.on('failed', (job, error) =>
    options.logger.warn({ job: job?.name, jobId: job?.id, err: error.message }, 'system job failed'),
  )
  worker.on('error', (error) => options.logger.error({ err: error.message }, 'system worker error'))
  return {
    async close() {
      await worker.close()
      await connection.quit().catch(() => connection.disconnect())
    },
  }
}
