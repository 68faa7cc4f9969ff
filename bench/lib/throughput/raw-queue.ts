import { randomUUID } from 'node:crypto'
import { createWorkerConnection, type ErrorLogger, queuePrefix, RETENTION } from '@fairlane/queue'
import { Queue, Worker } from 'bullmq'

export interface RawQueueResult {
  jobs: number
  /** Jobs a no-op BullMQ worker completes per second, from a queue filled beforehand. */
  jobsPerSec: number
  /** `addBulk` rate while filling it (1,000 jobs a call). */
  addPerSec: number
}

/**
 * What BullMQ alone does on this Redis: `jobs` jobs with the lanes' payload shape and retention,
 * completed by one Worker with a no-op processor at the bulk lane's concurrency, in this process.
 * The queue lives under a prefix of its own and is obliterated afterwards.
 */
export async function measureRawQueue(input: {
  redisUrl: string
  /** REDIS_CLUSTER: redisUrl seeds a cluster (the queue's hash tag keeps its keys on one slot). */
  cluster: boolean
  prefix: string
  jobs: number
  concurrency: number
}): Promise<RawQueueResult> {
  const target = { url: input.redisUrl, cluster: input.cluster }
  const producer = createWorkerConnection(target, 'bench-raw-producer', redisErrors)
  const consumer = createWorkerConnection(target, 'bench-raw-consumer', redisErrors)
  const queue = new Queue('raw-noop', { connection: producer, prefix: queuePrefix(input.prefix, 'raw-noop') })
  const tenantId = randomUUID()
  try {
    const addStart = performance.now()
    for (let start = 0; start < input.jobs; start += 1_000) {
      const size = Math.min(1_000, input.jobs - start)
      await queue.addBulk(
        Array.from({ length: size }, () => {
          const messageId = randomUUID()
          return {
            name: 'send',
            data: { v: 1, messageId, tenantId },
            opts: { ...RETENTION, attempts: 10, jobId: `m-${messageId}` },
          }
        }),
      )
    }
    const addSeconds = (performance.now() - addStart) / 1000

    let completed = 0
    let resolveDone = () => {}
    const done = new Promise<void>((resolve) => {
      resolveDone = resolve
    })
    const worker = new Worker('raw-noop', async () => {}, {
      connection: consumer,
      prefix: queuePrefix(input.prefix, 'raw-noop'),
      concurrency: input.concurrency,
      autorun: false,
    })
    worker.on('completed', () => {
      completed += 1
      if (completed === input.jobs) resolveDone()
    })
    const start = performance.now()
    void worker.run()
    await done
    const seconds = (performance.now() - start) / 1000
    await worker.close()
    return {
      jobs: input.jobs,
      jobsPerSec: input.jobs / seconds,
      addPerSec: input.jobs / addSeconds,
    }
  } finally {
    await queue.obliterate({ force: true }).catch(() => {})
    await queue.close()
    producer.disconnect()
    consumer.disconnect()
  }
}

const redisErrors: ErrorLogger = {
  error: (fields, message) => console.error(`${message}: ${JSON.stringify(fields)}`),
}
