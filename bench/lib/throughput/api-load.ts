import { availableParallelism } from 'node:os'
import { Redis } from 'ioredis'
import postgres, { type Sql } from 'postgres'
import { type DeliveryPlatform, fromBenchPlatform } from '../delivery-platform'
import { readWorkerCounters, startExtraProcesses } from '../many-processes'
import type { BenchPlatform } from '../platform'
import { seederFor, UNLIMITED_PLAN } from '../seeder'
import { countByMessageId, sinkClient, waitForSink } from '../sink-client'
import { percentile, round } from '../stats'
import { startMeter } from './meter'
import { NEWSLETTER } from './newsletter'

export interface ApiThroughputOptions {
  emails: number
  /** The web processes taking the load, requests spread round robin over them. */
  webUrls: string[]
  /** Worker name → its /metrics URL: each worker's completed and failed jobs. */
  workerMetrics: Record<string, string>
  /** Requests in flight per web process. */
  inFlightPerWeb: number
  log: (line: string) => void
}

/** The newsletter's 4 KB, its placeholders filled in: an API mail carries its final content. */
const CONTENT = {
  subject: 'Your December picks',
  html: NEWSLETTER.html.replace(/\{\{\w+\}\}/g, 'Anna'),
  text: NEWSLETTER.text.replace(/\{\{\w+\}\}/g, 'Anna'),
}
const DOMAIN = 'api-throughput.test'

interface WebTally {
  accepted: number
  /** Answers other than 202 and 429 (a 429 is waited out and retried, as a client does). */
  errors: number
  throttled: number
  latenciesMs: number[]
}

/**
 * `emails` transactional mails POSTed to /api/v1/messages, spread over the web processes, while the
 * workers deliver them: the many-process mode of `pnpm bench:throughput --web M`. Timed from the
 * first request to the last arrival at the sink; every accepted mail must arrive exactly once (by
 * Message-ID). Per process: mails/s and CPU per mail (web: accepted, worker: jobs completed) and
 * errors (web: failed requests, worker: failed job attempts).
 */
export async function runApiThroughput(platform: DeliveryPlatform, options: ApiThroughputOptions) {
  const { emails, log } = options
  const api = platform.api
  if (!api) throw new Error('the API load needs the web app (drop --no-web)')
  const sql = postgres(platform.databaseUrl, { max: 1, onnotice: () => {} })
  const redis = new Redis(platform.redisUrl, { maxRetriesPerRequest: 1 })
  const sink = sinkClient(platform.inboxUrl)
  try {
    await seederFor(platform, sql).setPlan(UNLIMITED_PLAN)
    log(`warming up: ${options.webUrls.length * 10} mails through every web process`)
    await post(options, api.apiKey, options.webUrls.length * 10, 'warm-up')
    await waitForSink(sink, options.webUrls.length * 10, log)
    await sink.clear()

    const countersBefore = await readCounters(options.workerMetrics)
    const meter = await startMeter({ sql, redisServers: [redis], processGroups: platform.processGroups })
    const startedAt = Date.now()
    log(`posting ${emails} mails over ${options.webUrls.length} web process(es)`)
    const { ids, tallies } = await post(options, api.apiKey, emails, 'reader')
    const acceptSeconds = (Date.now() - startedAt) / 1000
    await waitForSink(sink, ids.length, log)
    await waitForTerminal(sql, ids)
    const usage = await meter.stop(0)
    const countersAfter = await readCounters(options.workerMetrics)

    const receipts = await sink.receipts()
    const expected = new Set(ids.map((id) => `<${id}@${platform.mailDomain}>`))
    const counted = countByMessageId(receipts.filter((r) => r.messageId && expected.has(r.messageId)))
    const lastArrival = Math.max(...receipts.map((r) => Date.parse(r.receivedAt)))
    const seconds = (lastArrival - startedAt) / 1000
    const cpuMs = usage.cpu.cpuMs as Record<string, number>

    const webs = Object.fromEntries(
      options.webUrls.map((url, index) => {
        const name = index === 0 ? 'web' : `web${index + 1}`
        const tally = tallies[index] as WebTally
        return [
          name,
          {
            url,
            accepted: tally.accepted,
            acceptedPerSec: round(tally.accepted / acceptSeconds),
            errors: tally.errors,
            throttled: tally.throttled,
            p50Ms: round(percentile(tally.latenciesMs, 50)),
            p99Ms: round(percentile(tally.latenciesMs, 99)),
            cpuMsPerEmail: perMail(cpuMs[name], tally.accepted),
          },
        ]
      }),
    )
    const workers = Object.fromEntries(
      Object.keys(options.workerMetrics).map((name) => {
        const sent = (countersAfter[name]?.completed ?? 0) - (countersBefore[name]?.completed ?? 0)
        const failed = (countersAfter[name]?.failed ?? 0) - (countersBefore[name]?.failed ?? 0)
        return [
          name,
          {
            mails: sent,
            mailsPerSec: round(sent / seconds),
            errors: failed,
            cpuMsPerEmail: perMail(cpuMs[name], sent),
          },
        ]
      }),
    )
    return {
      mode: 'api',
      emails,
      accepted: ids.length,
      seconds: round(seconds, 2),
      emailsPerSec: round(ids.length / seconds),
      acceptSeconds: round(acceptSeconds, 2),
      acceptedPerSec: round(ids.length / acceptSeconds),
      delivered: counted.distinct.size,
      duplicates: counted.duplicates,
      missing: expected.size - counted.distinct.size,
      inFlightPerWeb: options.inFlightPerWeb,
      processes: { web: webs, worker: workers },
      cpuCores: Object.fromEntries(
        Object.entries(cpuMs).map(([name, ms]) => [name, round(ms / 1000 / usage.cpu.seconds, 2)]),
      ),
      machineCores: usage.cpu.machineCores,
      // The machine's busy cores less this run's processes, its Redis and its PostgreSQL backends:
      // what else ran meanwhile (another benchmark, a build), which these figures shared the cores with.
      machineCoresElsewhere: round(
        usage.cpu.machineCores -
          Object.entries(cpuMs)
            .filter(([name]) => name !== 'postgres' && name !== 'redis')
            .reduce((sum, [, ms]) => sum + ms, 0) /
            1000 /
            usage.cpu.seconds,
        2,
      ),
      // Everything the platform's processes, PostgreSQL and Redis spent per delivered mail.
      cpuMsPerEmail: Object.fromEntries(
        Object.entries(cpuMs).map(([name, ms]) => [name, perMail(ms, ids.length)]),
      ),
    }
  } finally {
    redis.disconnect()
    await sql.end({ timeout: 5 })
  }
}

export type ApiThroughputResult = Awaited<ReturnType<typeof runApiThroughput>>

function perMail(ms: number | undefined, mails: number): number | null {
  return ms === undefined || mails === 0 ? null : round(ms / mails, 2)
}

async function readCounters(metrics: Record<string, string>) {
  const entries = await Promise.all(
    Object.entries(metrics).map(async ([name, url]) => [name, await readWorkerCounters(url)] as const),
  )
  return Object.fromEntries(entries)
}

/** `count` mails, `inFlightPerWeb` requests at a time to each web process; the accepted ids in order. */
async function post(options: ApiThroughputOptions, apiKey: string, count: number, prefix: string) {
  const tallies: WebTally[] = options.webUrls.map(() => ({
    accepted: 0,
    errors: 0,
    throttled: 0,
    latenciesMs: [],
  }))
  const ids: string[] = []
  let next = 0
  const runner = async (webIndex: number) => {
    const url = `${options.webUrls[webIndex]}/api/v1/messages`
    const tally = tallies[webIndex] as WebTally
    while (next < count) {
      const index = next++
      const body = JSON.stringify({ to: `${prefix}${index}@${DOMAIN}`, ...CONTENT })
      for (;;) {
        const started = performance.now()
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(30_000),
        }).catch((error: Error) => error)
        if (response instanceof Error) {
          tally.errors += 1
          break
        }
        const answer = (await response.json().catch(() => null)) as { id?: string } | null
        if (response.status === 429) {
          tally.throttled += 1
          const seconds = Number(response.headers.get('retry-after') ?? '1')
          await new Promise((resolve) => setTimeout(resolve, Math.max(0.1, seconds) * 1000))
          continue
        }
        if (response.status !== 202 || !answer?.id) {
          tally.errors += 1
          break
        }
        tally.latenciesMs.push(performance.now() - started)
        tally.accepted += 1
        ids.push(answer.id)
        break
      }
    }
  }
  await Promise.all(
    options.webUrls.flatMap((_, webIndex) =>
      Array.from({ length: options.inFlightPerWeb }, () => runner(webIndex)),
    ),
  )
  return { ids, tallies }
}

/** The sink has them all; the last `sent` marks may still be on their way. */
async function waitForTerminal(sql: Sql, ids: string[]): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const [row] = await sql<{ open: number }[]>`
      select count(*)::int as open from messages
      where id = any(${ids}::uuid[]) and status in ('pending', 'queued', 'sending')`
    if (row?.open === 0) return
    if (Date.now() > deadline) throw new Error(`${row?.open} messages still open 30 s after the last arrival`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * What the API load changes in the platform's settings (reported under `overrides`): one tenant
 * sends everything, so its transactional bucket, API rate and lane slots (each sized to share a
 * machine among many tenants) would set the pace instead of the processes.
 */
export const API_LOAD_TUNING: Record<string, string> = {
  TRANSACTIONAL_RATE_PER_SEC: '100000',
  TRANSACTIONAL_BURST: '100000',
  TRANSACTIONAL_TENANT_SLOTS: '10000',
}

/**
 * `pnpm bench:throughput --workers N --web M`: N worker processes and M web processes on the bench
 * platform's PostgreSQL and Redis (the platform's own web and worker are the first of each), the
 * load POSTed over HTTP (`runApiThroughput`); the result gains the configuration.
 */
export async function runManyProcessThroughput(
  bench: BenchPlatform,
  options: {
    workers: number
    webs: number
    emails: number
    inFlightPerWeb?: number
    log: (line: string) => void
  },
) {
  options.log(`starting ${options.webs - 1} more web and ${options.workers - 1} more worker process(es)`)
  const extra = await startExtraProcesses(bench, { webs: options.webs })
  try {
    for (let index = 2; index <= options.workers; index++)
      await extra.startWorker(`worker${index}`, bench.config.WORKER_METRICS_PORT + index - 1)
    const result = await runApiThroughput(fromBenchPlatform(bench), {
      emails: options.emails,
      webUrls: extra.webUrls,
      workerMetrics: extra.workerMetrics,
      inFlightPerWeb: options.inFlightPerWeb ?? 8,
      log: options.log,
    })
    return {
      configuration: { workers: options.workers, web: options.webs, cores: availableParallelism() },
      ...result,
    }
  } finally {
    await extra.stop()
  }
}
