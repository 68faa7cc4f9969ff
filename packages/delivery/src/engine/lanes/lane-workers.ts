import { LANES, type Lane } from '@fairlane/core'
import { createWorkerConnection, laneBackoffStrategy, laneShards, type RedisClient } from '@fairlane/queue'
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
  /** LANE_SHARDS: every shard of each lane gets a worker of its own. */
  laneShards: number
  /** Per shard worker: each shard's worker runs the lane's whole concurrency (see `startLaneWorkers`). */
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
  /** Each lane's workers, one per shard, shard 0 first. */
  workers: Partial<Record<Lane, Worker[]>>
  /** Stops taking jobs, waits for running ones, then for their dead letters; closes the connections. */
  close(): Promise<void>
}

/**
 * One BullMQ Worker per lane shard, each with its own Redis connection, so a flood on one lane never
 * takes another's slots (or its blocking connection). A lane's shards share one processor, so its SMTP
 * pool (the lane's `*_SMTP_CONNECTIONS`) and its gate are the lane's, however many shards there are.
 * Each shard's worker runs the lane's whole concurrency: a tenant lives on one shard, and splitting the
 * concurrency would hold a lane with one busy tenant to 1/N of it; the shared SMTP pool keeps the sends
 * in flight where they were (the extra jobs wait, claimed, for a connection).
 */
export function startLaneWorkers(options: LaneWorkerOptions): LaneWorkers {
  const connections: RedisClient[] = []
  const workers: Partial<Record<Lane, Worker[]>> = {}
  for (const lane of options.lanes ?? LANES) {
    const processor = withRedactedErrors(options.processorFor(lane))
    workers[lane] = laneShards(options.prefix, lane, options.laneShards).map((shard) => {
      const connection = createWorkerConnection(
        { url: options.redisUrl, cluster: options.redisCluster },
        `worker-${shard.name}`,
        options.logger,
      )
      connections.push(connection)
      // BullMQ keeps a failed attempt's message and stack in Redis (failedReason, stacktrace): no addresses.
      const worker = new Worker(shard.name, processor, {
        connection,
        prefix: shard.prefix,
        concurrency: options.concurrency[lane],
        lockDuration: options.lockMs,
        stalledInterval: options.stalledIntervalMs,
        removeOnFail: options.failedRetention,
        settings: { backoffStrategy: laneBackoffStrategy },
      })
      worker.on('completed', () => options.metrics.jobsCompleted.inc({ lane }))
      worker.on('failed', (job, error) => options.deadLetters.onFailed(lane, job, error))
      worker.on('error', (error) =>
        options.logger.error({ lane, queue: shard.name, err: error.message }, 'lane worker error'),
      )
      return worker
    })
  }
  return {
    workers,
    async close() {
      await Promise.all(
        Object.values(workers)
          .flat()
          .map((worker) => worker.close()),
      )
      await options.deadLetters.drain()
      await Promise.all(
        connections.map((connection) => connection.quit().catch(() => connection.disconnect())),
      )
    },
  }
}
