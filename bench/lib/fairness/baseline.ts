import { renderCampaignMessage } from '@fairlane/mail/campaign'
import { createWorkerConnection, type ErrorLogger, queuePrefix, type RedisClient } from '@fairlane/queue'
import { type Job, Queue, Worker } from 'bullmq'
import nodemailer from 'nodemailer'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import { NEWSLETTER_HTML } from './seed'

/**
 * The naive design Fairlane replaces, run in the benchmark's process against the same Redis and
 * sink: one FIFO queue for everything (OTP included), no pacer, and the seed's token bucket —
 * rate-limiter-flexible's fixed window at the top of the handler; over the limit, the job is added
 * again with a 10 s delay.
 */
export interface BaselineJob {
  tenant: string
  to: string
  name: string
  ratePerSec: number
}

export interface Baseline {
  enqueue(jobs: BaselineJob[]): Promise<void>
  start(): void
  /** Redis commands spent re-adding over-limit jobs so far. */
  readonly requeued: number
  close(): Promise<void>
}

export async function createBaseline(options: {
  redisUrl: string
  smtpPort: number
  concurrency: number
  connections: number
}): Promise<Baseline> {
  const connection = createWorkerConnection(
    { url: options.redisUrl, cluster: false },
    'bench-baseline',
    redisErrors,
  )
  const prefix = 'fl-baseline'
  const queue = new Queue<BaselineJob>('baseline', { connection, prefix: queuePrefix(prefix, 'baseline') })
  const limiters = new Map<number, RateLimiterRedis>()
  const limiterFor = (points: number) => {
    let limiter = limiters.get(points)
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: connection,
        keyPrefix: `${prefix}-rl-${points}`,
        points,
        duration: 1,
      })
      limiters.set(points, limiter)
    }
    return limiter
  }
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: options.smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: options.connections,
    maxMessages: Number.POSITIVE_INFINITY,
  })
  let requeued = 0
  let worker: Worker<BaselineJob> | undefined
  let workerConnection: RedisClient | undefined

  async function process(job: Job<BaselineJob>): Promise<void> {
    const data = job.data
    try {
      await limiterFor(data.ratePerSec).consume(data.tenant)
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error
      requeued += 1
      await queue.add('send', data, { delay: 10_000, removeOnComplete: true, removeOnFail: true })
      return
    }
    const rendered = renderCampaignMessage({
      campaign: { subject: 'Your December digest, {{name}}', html: NEWSLETTER_HTML },
      contact: { email: data.to, name: data.name, attributes: { city: 'Lyon' } },
      unsubscribeUrl: 'http://127.0.0.1:3220/u/baseline',
    })
    await transport.sendMail({
      from: 'news@bench.test',
      to: data.to,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      headers: rendered.headers,
    })
  }

  return {
    async enqueue(jobs) {
      for (let start = 0; start < jobs.length; start += 1_000) {
        await queue.addBulk(
          jobs.slice(start, start + 1_000).map((data) => ({
            name: 'send',
            data,
            opts: { removeOnComplete: true, removeOnFail: true },
          })),
        )
      }
    },
    start() {
      workerConnection = createWorkerConnection(
        { url: options.redisUrl, cluster: false },
        'bench-baseline-worker',
        redisErrors,
      )
      worker = new Worker<BaselineJob>('baseline', process, {
        connection: workerConnection,
        prefix: queuePrefix(prefix, 'baseline'),
        concurrency: options.concurrency,
      })
      worker.on('error', () => {})
    },
    get requeued() {
      return requeued
    },
    async close() {
      await worker?.close(true)
      // BullMQ leaves a connection it was given open: without this the benchmark never exits.
      workerConnection?.disconnect()
      await queue.obliterate({ force: true }).catch(() => {})
      await queue.close()
      transport.close()
      connection.disconnect()
    },
  }
}

const redisErrors: ErrorLogger = {
  error: (fields, message) => console.error(`${message}: ${JSON.stringify(fields)}`),
}
