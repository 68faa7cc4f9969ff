import { LANES, type Lane } from '@fairlane/core'
import { createWorkerConnection, laneBackoffStrategy, queuePrefix, type RedisClient } from '@fairlane/queue'
import { type Job, Worker } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import type { DeadLetters } from './dead-letters'
import { withRedactedErrors } from './redact'
import type { SendJobResult } from './send-processor'

export interface LaneWorkerOptions {
  redisUrl: string
  redisCluster: boolean
  /** QUEUE_PREFIX; each lane's queue adds its hash tag (`queuePrefix`). */
  prefix: string
  concurrency: Record<Lane, number>
  /** BullMQ's job lock (JOB_LOCK_MS), renewed while the worker lives: how soon a dead worker's jobs come back. */
  lockMs: number
  stalledIntervalMs: number
  processorFor: (lane: Lane) => (job: Job, token?: string) => Promise<SendJobResult>
  deadLetters: DeadLetters
  logger: Logger
  metrics: Pick<WorkerMetrics, 'jobsCompleted'>
  /** Defaults to every lane; tests may run only some. */
  lanes?: readonly Lane[]
  /** BullMQ `removeOnFail` (FAILED_JOBS_MAX_COUNT, FAILED_JOBS_MAX_AGE_HOURS): lane jobs carry none of their own. */
  failedRetention: { age: number; count: number }
}

export interface LaneWorkers {
  workers: Partial<Record<Lane, Worker>>
  /** Stops taking jobs, waits for running ones, then for their dead letters; closes the connections. */
  close(): Promise<void>
}

/**
 * One BullMQ Worker per lane, each with its own Redis connection and concurrency, so a flood on one
 * lane never takes another's slots (or its blocking connection).
 */
export function startLaneWorkers(options: LaneWorkerOptions): LaneWorkers {
  const connections: RedisClient[] = []
  const workers: Partial<Record<Lane, Worker>> = {}
  for (const lane of options.lanes ?? LANES) {
    const connection = createWorkerConnection(
      { url: options.redisUrl, cluster: options.redisCluster },
      `worker-${lane}`,
      options.logger,
    )
    connections.push(connection)
    // BullMQ keeps a failed attempt's message and stack in Redis (failedReason, stacktrace): no addresses.
    const worker = new Worker(lane, withRedactedErrors(options.processorFor(lane)), {
      connection,
      prefix: queuePrefix(options.prefix, lane),
      concurrency: options.concurrency[lane],
      lockDuration: options.lockMs,
      stalledInterval: options.stalledIntervalMs,
      removeOnFail: options.failedRetention,
      settings: { backoffStrategy: laneBackoffStrategy },
    })
    worker.on('completed', () => options.metrics.jobsCompleted.inc({ lane }))
    worker.on('failed', (job, error) => options.deadLetters.onFailed(lane, job, error))
    worker.on('error', (error) => options.logger.error({ lane, err: error.message }, 'lane worker error'))
    workers[lane] = worker
  }
  return {
    workers,
    async close() {
      await Promise.all(Object.values(workers).map((worker) => worker.close()))
      await options.deadLetters.drain()
      await Promise.all(
        connections.map((connection) => connection.quit().catch(() => connection.disconnect())),
      )
    },
  }
}
