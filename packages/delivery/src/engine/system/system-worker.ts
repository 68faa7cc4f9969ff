import { createWorkerConnection, queuePrefix, SYSTEM_QUEUE } from '@fairlane/queue'
import { type Job, type Queue, Worker } from 'bullmq'
import type { Logger } from 'pino'
import { withTimeout } from '../with-timeout'
import { registerSchedules, type Schedule } from './schedules'

export type { Schedule } from './schedules'

/** How often the schedulers are upserted again when the caller does not say. */
export const SCHEDULE_RECONCILE_MS = 30_000
/**
 * How soon a failed re-registration is tried again: 1 s, then doubling up to 2 s (or the period, if
 * shorter). An attempt is one upsert per scheduler, cheap even every 2 s while Redis is away, and a
 * longer backoff would leave a fresh server without schedulers for longer than needed.
 */
const RECONCILE_RETRY_MS = 1_000
const RECONCILE_RETRY_MAX_MS = 2_000
/**
 * One re-registration may take this long: a command caught by a dropped connection can wait for the
 * reconnect, and an attempt that hangs must not hold back the next one (the reconnect's own).
 */
const RECONCILE_TIMEOUT_MS = 3_000

export interface SystemWorkerOptions {
  redisUrl: string
  redisCluster: boolean
  prefix: string
  queue: Pick<Queue, 'upsertJobScheduler'>
  /** Job name → what to do; a job scheduler's jobs carry its id as their name. */
  handlers: Record<string, (job: Job) => Promise<unknown>>
  schedules: Schedule[]
  concurrency: number
  logger: Logger
  /** Schedulers are upserted again this often; defaults to SCHEDULE_RECONCILE_MS. */
  reconcileEveryMs?: number
}

export interface SystemWorker {
  close(): Promise<void>
}

/**
 * The `system` queue's worker: schedulers (campaign dispatch, nightly cleanup, daily rollup) and
 * one-off wake-ups. Schedulers are upserted under stable ids, so restarts and extra worker
 * processes keep one schedule each, and listed in the boot log with their period and time zone.
 *
 * A scheduler lives only in Redis: after a FLUSHALL, or a failover that lost data, it is simply gone
 * and nothing due would ever run again (campaigns would stay `sending`). So the schedulers are
 * upserted again every `reconcileEveryMs` and whenever the worker's connection comes back; upsert is
 * idempotent (same id, same next run), so a healthy Redis only sees a few cheap commands.
 */
export async function startSystemWorker(options: SystemWorkerOptions): Promise<SystemWorker> {
  await registerSchedules(options.queue, options.schedules, options.logger)
  const connection = createWorkerConnection(
    { url: options.redisUrl, cluster: options.redisCluster },
    'worker-system',
    options.logger,
  )
  const worker = new Worker(
    SYSTEM_QUEUE,
    async (job) => {
      const handler = options.handlers[job.name]
      if (!handler) throw new Error(`no handler for system job ${JSON.stringify(job.name)}`)
      return handler(job)
    },
    { connection, prefix: queuePrefix(options.prefix, SYSTEM_QUEUE), concurrency: options.concurrency },
  )
  worker.on('failed', (job, error) =>
    options.logger.warn({ job: job?.name, jobId: job?.id, err: error.message }, 'system job failed'),
  )
  worker.on('error', (error) => options.logger.error({ err: error.message }, 'system worker error'))

  let closed = false
  let reconciling: Promise<void> | undefined
  const everyMs = options.reconcileEveryMs ?? SCHEDULE_RECONCILE_MS
  // Failed re-registrations are tried again sooner than the period (RECONCILE_RETRY_MS).
  let retryMs = RECONCILE_RETRY_MS
  // A reason that came while an attempt ran (a reconnect during a timer's attempt): run again after it,
  // since the attempt in flight may have written to the server that was just replaced.
  let pending: string | undefined
  const reconcile = (why: string) => {
    if (closed) return
    if (reconciling) {
      pending = why
      return
    }
    const attempt = registerSchedules(options.queue, options.schedules, options.logger, { quiet: true })
    reconciling = withTimeout(attempt, RECONCILE_TIMEOUT_MS, 'job scheduler re-registration')
      .then(() => {
        retryMs = RECONCILE_RETRY_MS
      })
      .catch((error: Error) => {
        // After a reconnect the queue's own connection may not be back yet: try again shortly rather
        // than at the next period.
        options.logger.warn(
          { err: error.message, why, retryMs },
          'job schedulers not re-registered; retrying',
        )
        setTimeout(() => reconcile('retry'), retryMs).unref()
        retryMs = Math.min(retryMs * 2, RECONCILE_RETRY_MAX_MS, everyMs)
      })
      .finally(() => {
        reconciling = undefined
        const again = pending
        pending = undefined
        if (again) reconcile(again)
      })
  }
  const timer = setInterval(() => reconcile('timer'), everyMs)
  timer.unref()
  // Every `ready`, the first included: a reconnect may be to a fresh server without our schedulers,
  // and the first connect may itself come after such a loss (the boot registration above went through
  // the queue's connection, and this one can be slower to connect on a loaded machine). Upserts are
  // idempotent, so one more at boot costs a few commands.
  connection.on('ready', () => reconcile('ready'))

  return {
    async close() {
      closed = true
      clearInterval(timer)
      await reconciling
      await worker.close()
      await connection.quit().catch(() => connection.disconnect())
    },
  }
}
