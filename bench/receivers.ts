/**
 * Fair at the receivers (issue 28), MX mode in this process against the mail sink's receivers:
 *  - tenant A: a campaign of 20,000 to "google" (gmail.test): a bulk sender, so campaign mail through
 *    the pacer and the bulk lane;
 *  - tenant B: 1,000 to "google" + 1,000 to "microsoft" (outlook.test), API mail (the default lane,
 *    written as the API-accept path writes it: queued row, outbox row, NOTIFY);
 *  - tenant C: 500 to 50 small domains on "others", API mail likewise;
 *  - "google" throttles at 300 a minute per source address; one egress address, 127.0.0.2.
 * Four runs in this process, each on a fresh database and queue prefix, against one sink: shaping on
 * (the receiver gate) with A and without A ("alone", for B's and C's latency), then the baseline
 * (`shaping: false`: MX delivery, each message retried on its own timer, no provider budgets) with
 * and without A.
 *
 * 20,000 at 300 a minute is 66 minutes, so a run with A lasts `--minutes` (default 3): measured while
 * the backlogs last, then the worker stops and every accepted message is counted as delivered (at the
 * sink, by Message-ID), waiting, failed or lost. A run without A stops once B's microsoft mail and
 * C's mail are all delivered (or after `--minutes`). `--scale` multiplies every tenant's count.
 * Progress on stderr; the last stdout line is one JSON object.
 *
 *   pnpm bench:receivers [--minutes 3] [--scale 1] [--no-baseline] [--batch-size 50]
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import { startTestPipeline } from '@fairlane/delivery/testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages, setPlan } from '@fairlane/delivery/testing/seed'
import { startTestSink } from '@fairlane/delivery/testing/sink'
import type { MailSink } from '@fairlane/mailsink/sink'
import { createTestDatabase, prepareTemplateDatabase } from '@fairlane/testing'
import postgres from 'postgres'
import {
  type AcceptedMessage,
  bothBackloggedUntil,
  jainByWeight,
  type Ledger,
  ledgerOf,
  percentileCountingUndelivered,
  type ReceiverCounters,
  throttledShareBetween,
} from './lib/receivers/measure'
import { startBenchRedis } from './lib/redis-server'
import { round } from './lib/stats'

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    scale: { type: 'string', default: '1' },
    'no-baseline': { type: 'boolean', default: false },
    // BULK_BATCH_SIZE's default: A's campaign goes out in jobs of this many per provider.
    'batch-size': { type: 'string', default: '50' },
  },
})
const minutes = Number(args.minutes)
const scale = Number(args.scale)
const batchSize = Number(args['batch-size'])
if (!(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 500))
  throw new Error(`--batch-size is a whole number from 1 to 500; got ${args['batch-size']}`)
if (!(minutes >= 1)) throw new Error(`--minutes is a number of minutes, at least 1; got ${args.minutes}`)
if (!(scale > 0 && scale <= 10)) throw new Error(`--scale is a number above 0, at most 10; got ${args.scale}`)
const progress = (line: string) => console.error(`bench:receivers ${line}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const SIZES = {
  aGoogle: Math.round(20_000 * scale),
  bGoogle: Math.round(1_000 * scale),
  bMicrosoft: Math.round(1_000 * scale),
  c: Math.round(500 * scale),
}
const SMALL_DOMAINS = Array.from(
  { length: Math.min(50, SIZES.c) },
  (_, i) => `small${i + 1}.others-bench.test`,
)
const GOOGLE_PER_MINUTE = 300
const EGRESS = '127.0.0.2'
/**
 * Throttle replies are counted from here on: the first minute is the controller's to learn the rate
 * (half the run when `--minutes` is under 2, so there is something left to count).
 */
const FIRST_MINUTE_MS = Math.min(60_000, (minutes * 60_000) / 2)

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane'
progress('preparing the migrated template database')
const template = await prepareTemplateDatabase(serverUrl)
const redis = await startBenchRedis()
const sink = await startTestSink({ receivers: true })
if (!sink.dns || sink.receiverPort === undefined) throw new Error('the sink started without its receivers')
for (const domain of SMALL_DOMAINS) sink.publishReceiverDomain(domain, 'others')
const google = sink.receivers.find((receiver) => receiver.name === 'google')
if (!google) throw new Error('the sink has no "google" receiver')

interface RunFigures {
  withA: boolean
  seconds: number
  throttledShare: number | null
  googleAttemptsAfterFirstMinute: number
  bUnthrottledP95Ms: number | null
  bMicrosoftDelivered: number
  cP95Ms: number | null
  cDelivered: number
  jainAtThrottled: number | null
  /** A's and B's deliveries at google while both had mail waiting for it, and that window's length. */
  atGoogleWhileBothWaited: { a: number; b: number; seconds: number }
  googleAcceptedPerMinute: number
  ledger: Ledger
  /** `deferred` events per tenant over the run. */
  deferrals: { a: number; b: number; c: number }
}

async function run(options: { shaping: boolean; withA: boolean }): Promise<RunFigures> {
  const label = `${options.shaping ? 'shaped' : 'baseline'}${options.withA ? '' : ' alone'}`
  const database = await createTestDatabase(serverUrl, template)
  const sql = postgres(database.url, { max: 2, onnotice: () => {} })
  sink.store.clear()
  sink.faults.clear()
  sink.faults.add({ receiver: 'google', throttle: { perMinute: GOOGLE_PER_MINUTE, per: 'source' } })
  google?.gate.resetCounts()
  const pipeline = await startTestPipeline(
    {
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisCluster: false,
      queuePrefix: `fairlane-bench-receivers-${randomBytes(4).toString('hex')}`,
    },
    sink,
    {
      pacer: { highWater: 100, horizonMs: 1_000, batchSize },
      receivers: {
        rules: loadReceiverRules(),
        dnsServers: [(sink.dns as NonNullable<MailSink['dns']>).address],
        port: sink.receiverPort as number,
        heloName: 'bench.fairlane.test',
        tls: 'opportunistic',
        allowPrivate: true,
        egressAddresses: [EGRESS],
        maxAgeMs: 72 * 3_600_000,
        timeoutMs: 5_000,
        shaping: options.shaping,
      },
    },
  )
  try {
    const db = pipeline.database.db
    const a = await createTenant(db, 'A bulk sender')
    const b = await createTenant(db, 'B shop')
    const c = await createTenant(db, 'C club')
    // A's plan is no limit of its own: google's patience is what A runs into.
    await setPlan(db, a, { ratePerSec: 1_000, burst: 1_000 })
    progress(`${label}: seeding`)
    const start = Date.now()
    if (options.withA)
      await seedCampaign(db, { tenantId: a, contacts: SIZES.aGoogle, prefix: 'a-', domain: 'gmail.test' })
    await seedQueuedMessages(db, {
      tenantId: b,
      lane: 'default',
      count: SIZES.bGoogle,
      to: (i) => `b-google${i}@gmail.test`,
    })
    await seedQueuedMessages(db, {
      tenantId: b,
      lane: 'default',
      count: SIZES.bMicrosoft,
      to: (i) => `b-microsoft${i}@outlook.test`,
    })
    await seedQueuedMessages(db, {
      tenantId: c,
      lane: 'default',
      count: SIZES.c,
      to: (i) => `c${i}@${SMALL_DOMAINS[i % SMALL_DOMAINS.length]}`,
    })
    const deadline = start + minutes * 60_000
    let afterFirstMinute: ReceiverCounters | undefined
    const unthrottledTotal = SIZES.bMicrosoft + SIZES.c
    progress(`${label}: running up to ${minutes} min`)
    for (;;) {
      const now = Date.now()
      if (!afterFirstMinute && now >= start + FIRST_MINUTE_MS) {
        const status = google?.gate.status()
        afterFirstMinute = { attempts: status?.attempts ?? 0, throttled: status?.throttled ?? 0 }
      }
      if (now >= deadline) break
      if (!options.withA) {
        const done =
          sink.store.list({ receiver: 'microsoft' }).length + sink.store.list({ receiver: 'others' }).length
        if (done >= unthrottledTotal) break
      }
      await sleep(1_000)
    }
    const end = Date.now()
    const status = google?.gate.status()
    const atEnd = { attempts: status?.attempts ?? 0, throttled: status?.throttled ?? 0 }
    progress(`${label}: stopping the worker`)
    await pipeline.stop()
    const rows = await sql<(AcceptedMessage & { tenantId: string; toAddress: string; acceptedAt: Date })[]>`
      select id, tenant_id as "tenantId", to_address as "toAddress", status, last_error as "lastError",
        coalesce(queued_at, created_at) as "acceptedAt"
      from messages`
    // How often each tenant's mail was sent back (a budget with no room, a throttle): each is a job
    // the lanes ran without sending.
    const deferrals = await sql<{ tenantId: string; count: number }[]>`
      select m.tenant_id as "tenantId", count(*)::int as count
      from message_events e join messages m on m.id = e.message_id
      where e.type = 'deferred' group by m.tenant_id`
    const deferralsOf = (tenantId: string) =>
      deferrals.find((entry) => entry.tenantId === tenantId)?.count ?? 0
    const byId = new Map(rows.map((row) => [row.id, row]))
    const deliveries = new Map<string, number>()
    const delivered: { row: (typeof rows)[number]; at: number; receiver: string }[] = []
    for (const message of sink.store.list()) {
      const id = /^<([^@>]+)@/.exec(message.messageId ?? '')?.[1]
      const row = id === undefined ? undefined : byId.get(id)
      if (!id || !row) continue
      const times = (deliveries.get(id) ?? 0) + 1
      deliveries.set(id, times)
      if (times === 1)
        delivered.push({ row, at: Date.parse(message.receivedAt), receiver: message.receiver?.name ?? '' })
    }
    const latencies = (keep: (entry: (typeof delivered)[number]) => boolean) =>
      delivered.filter(keep).map((entry) => entry.at - entry.row.acceptedAt.getTime())
    // Mail still waiting at the end counts as slower than all delivered: a p95 that falls among it is
    // null (longer than the run), not the p95 of the lucky ones.
    const p95 = (values: number[], total: number) => {
      const value = percentileCountingUndelivered(values, total, 95)
      return value === null ? null : round(value)
    }
    const bMicrosoft = latencies((entry) => entry.row.tenantId === b && entry.receiver === 'microsoft')
    const cLatencies = latencies((entry) => entry.row.tenantId === c)
    const atGoogle = (tenantId: string) =>
      delivered
        .filter((entry) => entry.row.tenantId === tenantId && entry.receiver === 'google')
        .map((entry) => entry.at)
    const aAtGoogle = atGoogle(a)
    const bAtGoogle = atGoogle(b)
    const aTotal = rows.filter((row) => row.tenantId === a).length
    const until = bothBackloggedUntil(
      [
        { deliveredAt: aAtGoogle, total: aTotal },
        { deliveredAt: bAtGoogle, total: SIZES.bGoogle },
      ],
      end,
    )
    const inWindow = (times: number[]) => times.filter((at) => at <= until).length
    const window = { a: inWindow(aAtGoogle), b: inWindow(bAtGoogle), seconds: round((until - start) / 1000) }
    const googleDelivered = aAtGoogle.length + bAtGoogle.length
    const share = afterFirstMinute ? throttledShareBetween(afterFirstMinute, atEnd) : null
    const figures: RunFigures = {
      withA: options.withA,
      seconds: round((end - start) / 1000),
      throttledShare: share === null ? null : round(share, 4),
      googleAttemptsAfterFirstMinute: afterFirstMinute ? atEnd.attempts - afterFirstMinute.attempts : 0,
      bUnthrottledP95Ms: p95(bMicrosoft, SIZES.bMicrosoft),
      bMicrosoftDelivered: bMicrosoft.length,
      cP95Ms: p95(cLatencies, SIZES.c),
      cDelivered: cLatencies.length,
      jainAtThrottled: options.withA
        ? round(
            jainByWeight([
              { count: window.a, weight: 1 },
              { count: window.b, weight: 1 },
            ]),
            3,
          )
        : null,
      atGoogleWhileBothWaited: window,
      googleAcceptedPerMinute: round(googleDelivered / ((end - start) / 60_000)),
      ledger: ledgerOf(rows, deliveries),
      deferrals: { a: deferralsOf(a), b: deferralsOf(b), c: deferralsOf(c) },
    }
    progress(`${label}: ${JSON.stringify(figures)}`)
    return figures
  } finally {
    await pipeline.stop()
    await sql.end({ timeout: 5 })
    await database.drop()
  }
}

/** The contract's fields from a run with A and the same scenario's run without it. */
function summary(withA: RunFigures, alone: RunFigures) {
  return {
    throttledShare: withA.throttledShare,
    bUnthrottledP95Ms: withA.bUnthrottledP95Ms,
    bUnthrottledP95AloneMs: alone.bUnthrottledP95Ms,
    cP95Ms: withA.cP95Ms,
    cP95AloneMs: alone.cP95Ms,
    jainAtThrottled: withA.jainAtThrottled,
    failedFor4xx: withA.ledger.failedFor4xx + alone.ledger.failedFor4xx,
    lost: withA.ledger.lost + alone.ledger.lost,
    duplicates: withA.ledger.duplicates + alone.ledger.duplicates,
    bLatencyRatio:
      withA.bUnthrottledP95Ms !== null && alone.bUnthrottledP95Ms
        ? round(withA.bUnthrottledP95Ms / alone.bUnthrottledP95Ms, 2)
        : null,
    cLatencyRatio: withA.cP95Ms !== null && alone.cP95Ms ? round(withA.cP95Ms / alone.cP95Ms, 2) : null,
    googleAcceptedPerMinute: withA.googleAcceptedPerMinute,
    atGoogleWhileBothWaited: withA.atGoogleWhileBothWaited,
    ledger: withA.ledger,
    ledgerAlone: alone.ledger,
  }
}

try {
  const shapedWithA = await run({ shaping: true, withA: true })
  const shapedAlone = await run({ shaping: true, withA: false })
  let baseline: ReturnType<typeof summary> | undefined
  if (!args['no-baseline']) {
    const baselineWithA = await run({ shaping: false, withA: true })
    const baselineAlone = await run({ shaping: false, withA: false })
    baseline = summary(baselineWithA, baselineAlone)
  }
  console.log(
    JSON.stringify({
      ...summary(shapedWithA, shapedAlone),
      minutes,
      scale,
      batchSize,
      sizes: SIZES,
      throttledSharesFromSecond: FIRST_MINUTE_MS / 1000,
      googleThrottlePerMinute: GOOGLE_PER_MINUTE,
      ...(baseline ? { baseline } : {}),
    }),
  )
} finally {
  await sink.close()
  await redis.stop()
}
