import { monitorEventLoopDelay } from 'node:perf_hooks'
import { messages } from '@fairlane/db'
import { maxInWindow, rateViolations } from '@fairlane/fairness'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, redisCommandCalls, setupTestEnvironment, startThrowawayRedis } from '@fairlane/testing'
import { inArray, sql } from 'drizzle-orm'
import { afterEach, describe, expect, inject, it } from 'vitest'
import {
  cancelUnfinished,
  countBetween,
  percentile,
  receivedTimesMs,
  sampleQueueDepth,
  startSampler,
} from '../../testing/measure'
import { inspectQueues, startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import {
  createTenant,
  seedCampaign,
  seedOtpInOneStatement,
  seedQueuedMessages,
  setPlan,
} from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'
import type { DeliveryOptions } from '../start-delivery'

/**
 * The fairness guarantees end to end (dispatch → pacer → bulk lane behind the tenant buckets → the
 * real sink), measured at the sink. Each test runs a pipeline of its own on a queue prefix of its own
 * and cancels what it leaves unsent, since none runs its backlog to completion.
 */
const test = setupTestEnvironment('fairness')

/**
 * Released bulk jobs are served first in, first out, so a tenant arriving while the lane is busy waits
 * behind up to this many jobs: it must be well under a second of the lane's throughput (about 100/s
 * for this in-process pipeline) for a small campaign's first send to come within a second.
 */
const HIGH_WATER = 40
const cleanups: Array<() => Promise<void>> = []

afterEach(async () => {
  // Every cleanup runs even if one fails: a pipeline left running would skew the next test.
  const failures: unknown[] = []
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => failures.push(error))
  if (failures.length > 0) throw failures[0]
})

interface Run {
  sink: MailSink
  pipeline: TestPipeline
  db: TestPipeline['database']['db']
  inspect: ReturnType<typeof inspectQueues>
}

/** A pipeline with the production lane sizes (bulk concurrency 20, 8 SMTP connections). */
async function startRun(name: string, overrides: Partial<DeliveryOptions> = {}): Promise<Run> {
  const queuePrefix = `${test.queuePrefix}-${name}`
  const sink = await startTestSink()
  cleanups.push(() => sink.close())
  const pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    queuePrefix,
    pacer: { highWater: HIGH_WATER, horizonMs: 1_000 },
    concurrency: { critical: 10, default: 5, bulk: 20 },
    smtp: {
      url: `smtp://127.0.0.1:${sink.smtpPort}`,
      timeoutMs: 2_000,
      connections: { critical: 4, default: 2, bulk: 8 },
    },
    ...overrides,
  })
  const inspect = inspectQueues({
    redisUrl: overrides.redisUrl ?? test.redisUrl,
    redisCluster: overrides.redisCluster ?? test.redisCluster,
    queuePrefix,
  })
  cleanups.push(async () => {
    await pipeline.stop()
    await inspect.lane('bulk').obliterate({ force: true })
    await inspect.close()
  })
  // Registered last, so it runs first: nothing is left pending for the next test's pacer.
  cleanups.push(() => cancelUnfinished(pipeline.database.db))
  return { sink, pipeline, db: pipeline.database.db, inspect }
}

/** Waits until the wall clock reaches `atMs`: the end of a measuring window, not a wait for a job. */
function windowEnds(atMs: number): Promise<true> {
  return eventually(() => Date.now() >= atMs, { what: 'the end of the measuring window', intervalMs: 20 })
}

/** OTPs on the critical lane, written as the API writes them, one every `everyMs` until `count`. */
function startOtpTraffic(run: Run, tenantId: string, options: { count: number; everyMs: number }) {
  const ids: string[] = []
  const to = (index: number) => `otp-${index}@otp.test`
  const sampler = startSampler(async () => {
    if (ids.length >= options.count) return
    const otp = await seedOtpInOneStatement(run.db, { tenantId, to: to(ids.length) })
    ids.push(otp.id)
  }, options.everyMs)
  cleanups.push(() => sampler.stop().catch(() => {}))
  return {
    /** Waits for every OTP at the sink; each one's latency from its row's created_at to the sink. */
    async latenciesMs(): Promise<number[]> {
      await eventually(
        () => ids.length === options.count && ids.every((_, i) => run.sink.store.list({ to: to(i) }).length),
        { what: 'every OTP at the sink' },
      )
      await sampler.stop()
      const rows = await run.db
        .select({ id: messages.id, createdAt: messages.createdAt })
        .from(messages)
        .where(inArray(messages.id, ids))
      const createdAt = new Map(rows.map((row) => [row.id, row.createdAt.getTime()]))
      return ids.map((id, i) => {
        const [mail] = run.sink.store.list({ to: to(i) })
        return Date.parse(mail?.receivedAt ?? '') - (createdAt.get(id) ?? Number.NaN)
      })
    },
  }
}

/**
 * A lane's first sends open its SMTP connections and load what they need, once per process: an
 * OTP and a campaign of 20 go first, so a cold start neither counts as OTP latency nor squeezes the
 * measured tenants' opening burst into the next second at the sink.
 */
async function warmUp(run: Run): Promise<void> {
  const tenantId = await createTenant(run.db, 'Warm-up')
  await setPlan(run.db, tenantId, { ratePerSec: 1_000, burst: 100 })
  await seedQueuedMessages(run.db, { tenantId, lane: 'critical', to: () => 'warm-up@otp.test' })
  const { prefix } = await seedCampaign(run.db, { tenantId, contacts: 20, prefix: 'warm-up-' })
  await eventually(
    () =>
      run.sink.store.list({ to: 'warm-up@otp.test' }).length === 1 &&
      receivedTimesMs(run.sink, prefix).length === 20,
    { what: 'the warm-up mail' },
  )
}

async function campaignStatus(run: Run, campaignId: string): Promise<string | undefined> {
  const [row] = await run.db.execute<{ status: string }>(
    sql`select status from campaigns where id = ${campaignId}`,
  )
  return row?.status
}

/** When a campaign's rows were written and released, in ms after its send time (for the log). */
async function releaseTimeline(run: Run, campaignId: string, sendAtMs: number) {
  const [row] = await run.db.execute<{
    dispatched: number
    first_released: number
    last_released: number
  }>(sql`
    select
      (extract(epoch from min(created_at)) * 1000 - ${sendAtMs}::float8)::int as dispatched,
      (extract(epoch from min(queued_at)) * 1000 - ${sendAtMs}::float8)::int as first_released,
      (extract(epoch from max(queued_at)) * 1000 - ${sendAtMs}::float8)::int as last_released
    from messages where campaign_id = ${campaignId}`)
  return row
}

describe('fairness', () => {
  it('serves a small campaign and OTPs at once behind a big backlog, within every plan and the high water', async () => {
    const run = await startRun('small-behind-big')
    const big = await createTenant(run.db, 'Big')
    const small = await createTenant(run.db, 'Small')
    await setPlan(run.db, big, { ratePerSec: 100, burst: 20 })
    await setPlan(run.db, small, { ratePerSec: 50, burst: 10 })
    // Event-loop lag is logged with the results: the worker, the sink and the test share one process.
    const lag = monitorEventLoopDelay({ resolution: 10 })
    lag.enable()
    cleanups.push(async () => {
      lag.disable()
    })
    const depth = sampleQueueDepth(run.inspect.lane('bulk'))
    cleanups.push(async () => void (await depth.stop().catch(() => undefined)))

    await warmUp(run)
    const bigCampaign = await seedCampaign(run.db, { tenantId: big, contacts: 5_000, prefix: 'big-' })
    // Sending, and its 5,000 rows all written (that dispatch is PostgreSQL's busiest moment).
    await eventually(
      async () =>
        receivedTimesMs(run.sink, bigCampaign.prefix).length >= 20 &&
        (await campaignStatus(run, bigCampaign.campaignId)) === 'sending',
      { what: "Big's campaign dispatched and sending" },
    )
    // OTPs from the flooding tenant itself, while its backlog and Small's campaign go out.
    const otps = startOtpTraffic(run, big, { count: 10, everyMs: 300 })
    // Due in 2 s: dispatched by the wake-up job at its send time, not at the next 1 s tick.
    const smallCampaign = await seedCampaign(run.db, {
      tenantId: small,
      contacts: 10,
      prefix: 'small-',
      sendAt: new Date(Date.now() + 2_000),
    })
    const [campaign] = await run.db.execute<{ send_at_ms: number }>(sql`
      select (extract(epoch from send_at) * 1000)::float8 as send_at_ms
      from campaigns where id = ${smallCampaign.campaignId}`)
    const sendAtMs = Number(campaign?.send_at_ms)
    await eventually(() => receivedTimesMs(run.sink, smallCampaign.prefix).length === 10, {
      what: "Small's 10 mails at the sink",
      timeoutMs: 15_000,
    })
    await windowEnds(Date.now() + 2_000)
    const otpLatencies = await otps.latenciesMs()
    const { peak: peakDepth } = await depth.stop()
    lag.disable()

    const smallTimes = receivedTimesMs(run.sink, smallCampaign.prefix)
    const bigTimes = receivedTimesMs(run.sink, bigCampaign.prefix)
    const smallFirstMs = Math.min(...smallTimes) - sendAtMs
    const smallDoneMs = Math.max(...smallTimes) - sendAtMs
    console.log('small behind big', {
      smallFirstMs,
      smallDoneMs,
      small: await releaseTimeline(run, smallCampaign.campaignId, sendAtMs),
      otpMaxMs: Math.max(...otpLatencies),
      otpP99Ms: percentile(otpLatencies, 99),
      otpP50Ms: percentile(otpLatencies, 50),
      peakDepth,
      highWater: HIGH_WATER,
      bigPerSec: Math.round((bigTimes.length * 1000) / (Math.max(...bigTimes) - Math.min(...bigTimes))),
      bigMaxIn1sAtSink: maxInWindow(bigTimes, 1_000),
      smallMaxIn1sAtSink: maxInWindow(smallTimes, 1_000),
      eventLoopLagP99Ms: Math.round(lag.percentile(99) / 1e6),
    })

    expect(smallFirstMs).toBeGreaterThanOrEqual(0)
    expect(smallFirstMs).toBeLessThanOrEqual(1_000)
    expect(smallDoneMs).toBeLessThanOrEqual(2_000)
    // The goal is 200 ms, met here on a quiet machine (and measured by `pnpm bench:fairness`); this
    // file shares its process and two cores with the sink, the worker and other test files, where
    // one OTP in ten can lose a scheduling slice, so the bound for the slowest is looser.
    expect(percentile(otpLatencies, 50)).toBeLessThanOrEqual(200)
    expect(Math.max(...otpLatencies)).toBeLessThanOrEqual(500)
    // The guarantee, where the mail arrives: rate + burst in any 1 s window, exactly as the plans say.
    expect(rateViolations(bigTimes, { ratePerSec: 100, burst: 20 })).toBe(0)
    expect(rateViolations(smallTimes, { ratePerSec: 50, burst: 10 })).toBe(0)
    expect(peakDepth).toBeGreaterThan(0)
    expect(peakDepth).toBeLessThanOrEqual(HIGH_WATER)
    expect(duplicateMessageIds(run.sink)).toEqual([])
  })

  // Counted on a single Redis of its own: on the `cluster` project it would repeat the integration run.
  it.skipIf(inject('redisCluster'))(
    'costs fewer than 60 Redis commands per delivered email while a tenant is 100x over its rate',
    async () => {
      const redis = await startThrowawayRedis()
      cleanups.push(() => redis.stop())
      // Production intervals for the periodic checks (stalled jobs, sweeper): their fixed cost per
      // second is part of what is measured, and the tests' shortened ones would overstate it.
      const run = await startRun('redis-cost', {
        redisUrl: redis.url,
        redisCluster: false,
        stalledIntervalMs: 30_000,
        tuning: { sweeper: { intervalMs: 5_000, queuedForMs: 30_000 } },
      })
      const tenantId = await createTenant(run.db, 'Flooder')
      await setPlan(run.db, tenantId, { ratePerSec: 100, burst: 20 })
      const { prefix } = await seedCampaign(run.db, { tenantId, contacts: 10_000, prefix: 'flood-' })
      // Past the opening burst and the first releases: steady state.
      await eventually(() => receivedTimesMs(run.sink, prefix).length >= 40, {
        what: 'the flood sending',
        timeoutMs: 20_000,
      })

      const deferred = async () =>
        (await run.pipeline.metrics.deferred.get()).values.find((value) => value.labels.lane === 'bulk')
          ?.value ?? 0
      const commandsBefore = await redisCommandCalls(redis.admin)
      const deliveredBefore = receivedTimesMs(run.sink, prefix).length
      const deferredBefore = await deferred()
      const startedMs = Date.now()
      await windowEnds(startedMs + 6_000)
      const commands = (await redisCommandCalls(redis.admin)) - commandsBefore
      const delivered = receivedTimesMs(run.sink, prefix).length - deliveredBefore
      const perEmail = commands / delivered
      console.log('redis commands per email', Math.round(perEmail * 10) / 10, {
        commands,
        delivered,
        deferralsPerEmail: Math.round((((await deferred()) - deferredBefore) / delivered) * 100) / 100,
        windowMs: Date.now() - startedMs,
      })

      // Sanity: the tenant sent at about its plan all through the window.
      // (A loose floor: a busy CI machine may not keep the full 100/s; the ratio is what is measured.)
      expect(delivered).toBeGreaterThanOrEqual(100 * 2)
      expect(delivered).toBeLessThanOrEqual(100 * 7 + 20)
      expect(perEmail).toBeLessThan(60)
    },
  )

  it('obeys a lowered plan within seconds', async () => {
    const run = await startRun('plan-cut')
    const tenantId = await createTenant(run.db, 'Downgraded')
    await setPlan(run.db, tenantId, { ratePerSec: 200, burst: 50 })
    const { prefix } = await seedCampaign(run.db, { tenantId, contacts: 4_000, prefix: 'cut-' })
    await eventually(() => receivedTimesMs(run.sink, prefix).length >= 300, {
      what: 'sending at the high plan',
      timeoutMs: 20_000,
    })

    const cutMs = Date.now()
    await setPlan(run.db, tenantId, { ratePerSec: 20, burst: 5 })
    // The plan cache's 2 s refresh plus the jobs already queued: obeyed from 3 s on.
    await windowEnds(cutMs + 6_000)
    const times = receivedTimesMs(run.sink, prefix)
    const settled = times.filter((time) => time >= cutMs + 3_000)
    console.log('plan cut 200/s -> 20/s', {
      inSecondBeforeCut: countBetween(times, cutMs - 1_000, cutMs),
      perSecondAfterCut: [0, 1, 2, 3, 4, 5].map((s) =>
        countBetween(times, cutMs + s * 1_000, cutMs + s * 1_000 + 999),
      ),
      in2sFrom3s: countBetween(times, cutMs + 3_000, cutMs + 5_000),
      maxIn2sAfter3s: maxInWindow(settled, 2_000),
    })

    // It was sending above the new plan when the plan changed.
    expect(countBetween(times, cutMs - 1_000, cutMs)).toBeGreaterThan(20 + 5)
    expect(countBetween(times, cutMs + 3_000, cutMs + 5_000)).toBeLessThanOrEqual(20 * 2 + 5)
    expect(maxInWindow(settled, 2_000)).toBeLessThanOrEqual(20 * 2 + 5)
  })

  it('the governor holds the bulk lane to a tenth of its depth and workers while login codes miss their target', async () => {
    // A 1 ms target: every code misses it, so each second's period cuts until the floor (0.1).
    const run = await startRun('governor', { bulkGovernorTargetMs: 1 })
    const tenantId = await createTenant(run.db, 'Newsletter')
    await setPlan(run.db, tenantId, { ratePerSec: 500, burst: 100 })
    startOtpTraffic(run, tenantId, { count: 1_000, everyMs: 100 })
    const factor = async () => (await run.pipeline.metrics.bulkGovernorFactor.get()).values[0]?.value
    await eventually(async () => (await factor()) === 0.1, {
      what: 'the governor factor at its floor',
      timeoutMs: 15_000,
    })

    let peakActive = 0
    const active = startSampler(async () => {
      peakActive = Math.max(peakActive, await run.inspect.lane('bulk').getActiveCount())
    }, 20)
    cleanups.push(() => active.stop().catch(() => {}))
    const depth = sampleQueueDepth(run.inspect.lane('bulk'), 20)
    const { prefix } = await seedCampaign(run.db, { tenantId, contacts: 2_000, prefix: 'governed-' })
    await eventually(() => receivedTimesMs(run.sink, prefix).length >= 30, {
      what: 'bulk mail going out under the governor',
      timeoutMs: 20_000,
    })
    const { peak: peakDepth, samples } = await depth.stop()
    await active.stop()
    console.log('governor at its floor', { peakDepth, peakActive, samples, factor: await factor() })

    // HIGH_WATER × 0.1 and BULK_CONCURRENCY (20) × 0.1: bulk still moves, at a tenth.
    expect(await factor()).toBe(0.1)
    expect(samples).toBeGreaterThan(10)
    expect(peakDepth).toBeLessThanOrEqual(HIGH_WATER / 10)
    expect(peakActive).toBeLessThanOrEqual(2)
  })
})
