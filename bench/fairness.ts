/**
 * Fairness, through the real processes (web, worker, sink) on a Redis of the benchmark's own:
 *  - phase 1: tenants Big (50,000 recipients, 300/s), three Medium (5,000 each, 100/s) and Small
 *    (20 recipients, 50/s, due 10 s after Big), while an OTP tenant calls the API every 100 ms;
 *  - phase 2: four tenants whose plans together exceed the machine (1,000/s each), weights 1, 1, 2, 4:
 *    capacity must be shared by weight (Jain's index of share ÷ weight);
 *  - the same scenario again as the baseline (one FIFO queue, OTP in it, no pacer, fixed-window
 *    limiter that re-adds over-limit jobs with a 10 s delay), in this process, same Redis and sink.
 * `--big 1000000` (≥ 200,000) runs the scale mode instead: one huge campaign, Redis memory sampled.
 * `--tenants 10000 [--small-recipients 50] [--jain-seconds 120]` runs the many-tenants mode instead
 * (lib/fairness/many-tenants.ts): that many small tenants and Big (`--big`), all due at once; pacer
 * tick p99, each small tenant's first send, Jain over the small tenants. `--seed-pending` writes the
 * campaigns' messages pending at due time in one statement instead of dispatching them.
 * `--due-spread-seconds 60`: the small tenants' campaigns come due evenly over 60 s instead of at
 * once (lib/fairness/due-spread.ts); each first send counts from its own tenant's due time.
 * `--warm-up-tenants 200`: before the many-tenants mode measures, that many other tenants' small
 * campaigns go through the bulk lane (0: the workers start measured cold).
 * Progress on stderr; the last stdout line is one JSON object.
 *
 *   pnpm bench:fairness [--big 50000] [--medium 5000] [--seconds 40] [--phase2-seconds 20] [--no-baseline]
 *   pnpm bench:fairness --workers 3 [--no-kill] [--cluster]
 *
 * `--workers N` (≥ 2): N worker processes, each bulk one a pacer candidate (lib/fairness/many-workers.ts);
 * halfway through phase 1 the pacer's leader is SIGKILLed and replaced. The result gains
 * `leadership` (who led when, from the workers' logs: overlaps, the handover after the kill) and
 * `exactlyOnce` (phase 1's mail at the sink by Message-ID). `--no-kill` keeps the leader alive.
 * `--cluster`: the run twice, on one Redis and on a local Redis Cluster (`startRedisCluster`), the
 * figures side by side in one JSON line (lib/fairness/cluster.ts).
 */
import { parseArgs } from 'node:util'
import { mailDomain } from '@fairlane/config'
import { governorKeys, maxMinFairShares } from '@fairlane/fairness'
import { allLaneQueues, createLaneQueues, laneJobCounts, queuePrefix } from '@fairlane/queue'
import { Queue } from 'bullmq'
import { type Cluster, Redis } from 'ioredis'
import postgres from 'postgres'
import { createBaseline } from './lib/fairness/baseline'
import { runSideBySide } from './lib/fairness/cluster'
import {
  manyTenantsMode,
  readHistograms,
  readTickHistogram,
  subtract,
  summariesSince,
  tickSummary,
} from './lib/fairness/many-tenants'
import {
  checkExactlyOnce,
  createLeadershipLog,
  PACER_CANDIDATE_SETTINGS,
  type PacerCandidates,
  startPacerCandidates,
} from './lib/fairness/many-workers'
import {
  byDomain,
  type Delivery,
  latencySummary,
  readSink,
  type TenantSpec,
  totalViolations,
  weightedShares,
} from './lib/fairness/measure'
import { type OtpSteps, otpSteps, outboxPublished } from './lib/fairness/otp-steps'
import { cancelCampaigns, createBenchTenant, seedCampaign } from './lib/fairness/seed'
import { startBenchPlatform } from './lib/platform'
import { startQueueRedis } from './lib/redis-server'
import {
  commandsPerEmail,
  type RedisCommandStats,
  readRedisCommandStats,
  redisDelta,
  sumCommandStats,
} from './lib/server-stats'
import { round } from './lib/stats'

const { values: args } = parseArgs({
  options: {
    big: { type: 'string', default: '50000' },
    medium: { type: 'string', default: '5000' },
    small: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '40' },
    'phase2-seconds': { type: 'string', default: '20' },
    'no-baseline': { type: 'boolean', default: false },
    // Seeding 65,000 rows took over 3 s on a slower instance of the machine; the wait is idle time.
    'start-delay': { type: 'string', default: '10' },
    workers: { type: 'string' },
    'no-kill': { type: 'boolean', default: false },
    cluster: { type: 'boolean', default: false },
    tenants: { type: 'string' },
    'small-recipients': { type: 'string', default: '50' },
    'first-send-timeout': { type: 'string', default: '600' },
    'jain-seconds': { type: 'string', default: '120' },
    'seed-pending': { type: 'boolean', default: false },
    'due-spread-seconds': { type: 'string', default: '0' },
    // Many-tenants mode: campaign mail of this many tenants (5 recipients each) sent before anything
    // is measured, as phase 1 warms up with login codes; 0 measures the workers starting cold.
    'warm-up-tenants': { type: 'string', default: '200' },
    // Set by `--cluster` for its second run: this run on the local Redis Cluster.
    'on-cluster': { type: 'boolean', default: false },
  },
})
const sizes = { big: Number(args.big), medium: Number(args.medium), small: Number(args.small) }
const seconds = Number(args.seconds)
const phase2Seconds = Number(args['phase2-seconds'])
const SMALL_DELAY_MS = 10_000
/** How long after seeding starts the campaigns are due (`--start-delay`, seconds): seeding must end first. */
const START_DELAY_MS = Number(args['start-delay']) * 1000
if (!Number.isFinite(START_DELAY_MS) || START_DELAY_MS < 1000)
  throw new Error('--start-delay is at least 1 (seconds)')
const DUE_SPREAD_SECONDS = Number(args['due-spread-seconds'])
if (!Number.isFinite(DUE_SPREAD_SECONDS) || DUE_SPREAD_SECONDS < 0)
  throw new Error(`--due-spread-seconds is a number of seconds ≥ 0, got ${args['due-spread-seconds']}`)
if (DUE_SPREAD_SECONDS > 0 && args.tenants === undefined)
  throw new Error('--due-spread-seconds belongs to the many-tenants mode (--tenants N)')
const progress = (line: string) => console.error(`bench:fairness ${line}`)
if (args.cluster) {
  console.log(JSON.stringify(await runSideBySide(process.argv.slice(2), progress)))
  process.exit(0)
}
const workers = args.workers === undefined ? undefined : Number(args.workers)
if (workers !== undefined && (!Number.isSafeInteger(workers) || workers < 2 || workers > 8))
  throw new Error('--workers is a whole number from 2 to 8 (the split layout has two)')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const BIG: TenantSpec = { name: 'big', domain: 'big.bench.test', ratePerSec: 300, burst: 60, weight: 1 }
const MEDIUMS: TenantSpec[] = [1, 2, 3].map((n) => ({
  name: `medium${n}`,
  domain: `medium${n}.bench.test`,
  ratePerSec: 100,
  burst: 20,
  weight: 1,
}))
const SMALL: TenantSpec = { name: 'small', domain: 'small.bench.test', ratePerSec: 50, burst: 10, weight: 1 }
const WEIGHTED: TenantSpec[] = [1, 1, 2, 4].map((weight, i) => ({
  name: `w${i + 1}`,
  domain: `w${i + 1}.bench.test`,
  ratePerSec: 1_000,
  burst: 200,
  weight,
}))

interface PhaseOneResult {
  bigTenantBacklog: number
  smallTenantFirstSendMs: number | null
  smallTenantDoneMs: number | null
  otpP50Ms: number | null
  otpP99Ms: number | null
  /** Fairlane only: the same login codes with no bulk mail running, just before phase 1 (`unloadedOtp`). */
  otpUnloadedP50Ms?: number | null
  otpUnloadedP99Ms?: number | null
  otpUnloadedSteps?: OtpSteps
  /** Fairlane only: the critical lane's sends step by step (`fairlane_send_step_seconds`), unloaded and in phase 1. */
  otpUnloadedSendSteps?: SendSteps
  otpSendSteps?: SendSteps
  otpSamples: number
  rateViolations: number
  bigTenantUtilization: number
  /**
   * Big's sends ÷ its weighted max-min fair share of what the bulk lane sent in the same window: the
   * utilisation a perfectly fair platform would reach on this machine, where capacity is below the
   * plans' sum (then `bigTenantUtilization` cannot reach 1 without taking the Mediums' shares).
   */
  bigTenantFairShareUtilization: number
  /** Bulk sends per second over Big's span: what the machine gave all the bulk tenants together. */
  bulkEmailsPerSec: number
  redisCommandsPerEmail: number
  /** Fairlane only: the commands Redis ran most in the phase, per delivered email. */
  redisCommandsPerEmailByCommand?: Record<string, number>
  maxBulkDepth: number
  delivered: number
  /** The lowest bulk governor factor seen (Fairlane only): how far bulk yielded to login codes. */
  governorMinFactor?: number
  /** Fairlane only: a login code's time step by step (lib/fairness/otp-steps.ts). */
  otpSteps?: OtpSteps
  /** Fairlane only: the pacer leader's ticks over the phase (bucket bounds of `fairlane_pacer_tick_seconds`). */
  pacerTick?: ReturnType<typeof tickSummary>
  /** Fairlane only: Small's first send step by step (`firstSendSteps`). */
  smallFirstSendSteps?: { dispatch: number; release: number; send: number } | null
  /** Fairlane only: outbox rows each worker process's relay published during phase 1. */
  outboxPublishedBy?: Record<string, number | null>
  /** With `--workers`: phase 1's mail at the sink by Message-ID (many-workers.ts `checkExactlyOnce`). */
  exactlyOnce?: Awaited<ReturnType<typeof checkExactlyOnce>>
}

const redis = await startQueueRedis(args['on-cluster'], progress)
/**
 * The layout a deployment runs (docker-compose.yml): bulk in one worker process, the transactional
 * lanes in another, so the OTPs measured here never wait for the bulk process's event loop.
 * `WORKER_LAYOUT=single` in the environment measures the one-process layout instead.
 */
const workerLayout = workers === undefined ? process.env.WORKER_LAYOUT || 'split' : 'split'
const leadershipLog = workers === undefined ? undefined : createLeadershipLog()
const platform = await startBenchPlatform(
  args.tenants !== undefined
    ? 'fairness_tenants'
    : workers === undefined && !args['on-cluster']
      ? 'fairness'
      : 'fairness_procs',
  {
    ...redis.env,
    MAILSINK_MAX_MESSAGES: '500000',
    // The sink stands in for receivers on other machines: it keeps headers, not 50,000 parsed bodies.
    MAILSINK_STORE: 'headers',
    WORKER_LAYOUT: workerLayout,
    ...(workers === undefined ? {} : PACER_CANDIDATE_SETTINGS),
  },
  {
    ...(leadershipLog ? { output: leadershipLog.stream } : {}),
    // The many-tenants mode seeds in SQL and posts nothing: no web app, no web build to wait for.
    // The worker layout all the same (split: the pacer led from worker-tx, as `pnpm start` runs it).
    ...(args.tenants !== undefined ? { web: false, workerLayout: true } : {}),
  },
)
let candidates: PacerCandidates | undefined
if (workers !== undefined && leadershipLog) {
  progress(
    `starting ${workers - 2} more bulk worker(s): ${workers - 1} pacer candidates (worker-tx leads, the bulk workers stand by)`,
  )
  candidates = await startPacerCandidates(platform, leadershipLog, workers)
}
const sql = postgres(platform.databaseUrl, { max: 4, onnotice: () => {} })
const probe: Redis | Cluster = redis.client()
// Every shard of the bulk lane (LANE_SHARDS): its depth is their total.
const lanes = createLaneQueues(
  probe,
  { prefix: platform.queuePrefix, shards: platform.config.LANE_SHARDS },
  { error: (fields, message) => console.error(message, fields) },
)
const governorFactorKey = governorKeys(platform.queuePrefix).factor
const clearSink = () => fetch(`${platform.inboxUrl}/messages`, { method: 'DELETE' })

/** Samples something every `everyMs` until stopped; keeps the maximum. */
function sampleMax(everyMs: number, read: () => Promise<number>) {
  let max = 0
  let stopped = false
  const running = (async () => {
    while (!stopped) {
      max = Math.max(max, await read().catch(() => 0))
      await sleep(everyMs)
    }
  })()
  return {
    async stop() {
      stopped = true
      await running
      return max
    },
  }
}

const bulkDepth = async () => {
  const counts = await laneJobCounts(lanes, 'bulk', 'waiting', 'active', 'delayed', 'prioritized')
  return Object.values(counts).reduce((sum, count) => sum + count, 0)
}

const OTP_DOMAIN = 'otp.bench.test'

/**
 * One OTP every 100 ms until `untilMs`; latency = sink receivedAt − the moment before the POST
 * (`sentAt`); `answeredAt`: when the request's answer was in hand.
 */
async function otpLoop(
  untilMs: number,
  send: (to: string) => Promise<void>,
): Promise<{ sentAt: Map<string, number>; answeredAt: Map<string, number> }> {
  const sentAt = new Map<string, number>()
  const answeredAt = new Map<string, number>()
  for (let i = 0; Date.now() < untilMs; i++) {
    const to = `otp-${i}-${Date.now()}@${OTP_DOMAIN}`
    const started = Date.now()
    sentAt.set(to, started)
    await send(to).then(
      () => answeredAt.set(to, Date.now()),
      (error: Error) => progress(`otp request failed: ${error.message}`),
    )
    await sleep(Math.max(0, 100 - (Date.now() - started)))
  }
  return { sentAt, answeredAt }
}

function otpLatencies(deliveries: Delivery[], sentAt: Map<string, number>): number[] {
  return deliveries.flatMap((delivery) => {
    const started = sentAt.get(delivery.to)
    return started === undefined ? [] : [delivery.at - started]
  })
}

function phaseOneFigures(input: {
  deliveries: Delivery[]
  windowStart: number
  windowEnd: number
  smallSendAt: number
  otpSentAt: Map<string, number>
  commands: number
  maxBulkDepth: number
}): PhaseOneResult {
  const { deliveries } = input
  const small = byDomain(deliveries, SMALL.domain).sort((a, b) => a - b)
  const big = byDomain(deliveries, BIG.domain)
  const bigFirst = Math.min(...big)
  const bigSpanSeconds = Math.max(1, (input.windowEnd - bigFirst) / 1000)
  const otp = latencySummary(otpLatencies(deliveries, input.otpSentAt))
  const bulkTenants = [BIG, ...MEDIUMS]
  const bulkInSpan = bulkTenants
    .flatMap((spec) => byDomain(deliveries, spec.domain))
    .filter((at) => at >= bigFirst && at <= input.windowEnd).length
  const bulkEmailsPerSec = bulkInSpan / bigSpanSeconds
  const [bigFairShare = 0] = maxMinFairShares(bulkEmailsPerSec, bulkTenants)
  return {
    bigTenantBacklog: sizes.big,
    smallTenantFirstSendMs: small.length > 0 ? round((small[0] as number) - input.smallSendAt) : null,
    smallTenantDoneMs:
      small.length >= sizes.small ? round((small.at(-1) as number) - input.smallSendAt) : null,
    otpP50Ms: otp.p50,
    otpP99Ms: otp.p99,
    otpSamples: input.otpSentAt.size,
    rateViolations: totalViolations(deliveries, [BIG, ...MEDIUMS, SMALL]),
    bigTenantUtilization: round(big.length / (BIG.ratePerSec * bigSpanSeconds), 3),
    bigTenantFairShareUtilization:
      bigFairShare > 0 ? round(big.length / bigSpanSeconds / bigFairShare, 3) : 0,
    bulkEmailsPerSec: round(bulkEmailsPerSec, 1),
    redisCommandsPerEmail: round(input.commands / Math.max(1, deliveries.length), 1),
    maxBulkDepth: input.maxBulkDepth,
    delivered: deliveries.length,
  }
}

/**
 * Where Small's first send spent its time (ms): from its send time to the dispatcher's commit of its
 * first rows (`created_at`), from there to the pacer's first release (`queued` event), and from there
 * to the sink's receipt of its first mail (worker, connection, SMTP). Database times are each
 * transaction's start, so a step can read a millisecond or two early.
 */
async function firstSendSteps(
  db: postgres.Sql,
  input: { tenantId: string; sendAt: number; firstSendMs: number | null },
): Promise<{ dispatch: number; release: number; send: number } | null> {
  const [row] = await db<{ dispatched: Date | null; released: Date | null }[]>`
    select (select min(created_at) from messages where tenant_id = ${input.tenantId}) as dispatched,
      (select min(at) from message_events where tenant_id = ${input.tenantId} and type = 'queued') as released`
  if (!row?.dispatched || !row.released || input.firstSendMs === null) return null
  const dispatched = row.dispatched.getTime() - input.sendAt
  const released = row.released.getTime() - input.sendAt
  return {
    dispatch: round(dispatched),
    release: round(released - dispatched),
    send: round(input.firstSendMs - released),
  }
}

/** The metrics pages of worker (bulk) and worker-tx: either may hold the pacer's lease. */
function workerMetricsUrls(): string[] {
  const port = Number(new URL(platform.metricsUrl).port)
  return [platform.metricsUrl, platform.metricsUrl.replace(`:${port}/`, `:${port + 1}/`)]
}

/** POSTs one login code through the API, as the OTP tenant does. */
async function postOtp(to: string): Promise<void> {
  const response = await fetch(`${platform.webUrl}/api/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to, template: 'otp', variables: { code: '123456', appName: 'Bench' } }),
  })
  if (response.status !== 202) throw new Error(`OTP answered ${response.status}`)
}

/**
 * Twenty login codes through the whole path before anything is measured: the processes' first sends
 * open their database and SMTP connections and compile their hot code (measured: the first second's
 * codes took 0.5–1 s, and ten of them are the p99 of a 40 s run). A deployment warms once; the
 * benchmark measures the platform running, not starting.
 */
async function warmUp(): Promise<void> {
  const since = Date.now()
  const recipients = Array.from({ length: 20 }, (_, i) => `warm-up-${i}-${since}@otp.bench.test`)
  for (const to of recipients) await postOtp(to)
  const deadline = Date.now() + 30_000
  while ((await readSink(platform.inboxUrl, since)).length < recipients.length) {
    if (Date.now() > deadline) throw new Error('the warm-up login codes did not all arrive within 30 s')
    await sleep(100)
  }
}

/**
 * The login codes' own floor in this run: one every 100 ms for five seconds with no bulk mail at all
 * (after the warm-up, before anything is seeded), through the same path and clocks as under load. What
 * the codes take under load beyond this is what bulk costs them.
 */
async function unloadedOtp(): Promise<{
  p50: number | null
  p99: number | null
  samples: number
  steps: OtpSteps
  sendSteps: SendSteps
}> {
  const since = Date.now()
  const stepsBefore = await readSendSteps()
  const { sentAt, answeredAt } = await otpLoop(since + 5_000, postOtp)
  const deadline = Date.now() + 30_000
  let deliveries = await readSink(platform.inboxUrl, since)
  let latencies = otpLatencies(deliveries, sentAt)
  while (latencies.length < sentAt.size) {
    if (Date.now() > deadline) throw new Error('the unloaded login codes did not all arrive within 30 s')
    await sleep(100)
    deliveries = await readSink(platform.inboxUrl, since)
    latencies = otpLatencies(deliveries, sentAt)
  }
  const steps = await otpSteps(sql, { domain: OTP_DOMAIN, sentAt, answeredAt, deliveries })
  const sendSteps = summariesSince(stepsBefore, await readSendSteps())
  return { ...latencySummary(latencies), samples: latencies.length, steps, sendSteps }
}

type SendSteps = ReturnType<typeof summariesSince>

/** The critical lane's `fairlane_send_step_seconds` by step, from every worker process. */
function readSendSteps() {
  return readHistograms(workerMetricsUrls(), 'fairlane_send_step_seconds', 'step', { lane: 'critical' })
}

async function fairlanePhaseOne(): Promise<PhaseOneResult> {
  progress('phase 1: warming up with 20 login codes')
  await warmUp()
  progress('phase 1: 50 login codes with no bulk mail (their floor in this run)')
  const otpUnloaded = await unloadedOtp()
  progress(`phase 1: seeding Big ${sizes.big}, 3 × Medium ${sizes.medium}, Small ${sizes.small}`)
  const tenants = new Map<string, string>()
  for (const spec of [BIG, ...MEDIUMS, SMALL])
    tenants.set(spec.name, await createBenchTenant(sql, spec.name, spec))
  const start = Date.now() + START_DELAY_MS + 2_000
  const smallSendAt = start + SMALL_DELAY_MS
  const campaigns: string[] = []
  campaigns.push(
    await seedCampaign(sql, {
      tenantId: tenants.get('big') as string,
      count: sizes.big,
      domain: BIG.domain,
      sendAt: new Date(start),
    }),
  )
  for (const medium of MEDIUMS) {
    campaigns.push(
      await seedCampaign(sql, {
        tenantId: tenants.get(medium.name) as string,
        count: sizes.medium,
        domain: medium.domain,
        sendAt: new Date(start),
      }),
    )
  }
  campaigns.push(
    await seedCampaign(sql, {
      tenantId: tenants.get('small') as string,
      count: sizes.small,
      domain: SMALL.domain,
      sendAt: new Date(smallSendAt),
    }),
  )
  if (Date.now() > start - 500)
    throw new Error(
      `seeding took ${Math.round((Date.now() - start) / 1000 + START_DELAY_MS / 1000 + 2)} s, longer than the start delay (${START_DELAY_MS / 1000} s); raise --start-delay`,
    )
  await clearSink()
  await sleep(start - Date.now())
  const depth = sampleMax(100, bulkDepth)
  const governorCut = sampleMax(250, async () => 1 - Number((await probe.get(governorFactorKey)) ?? 1))
  const commandsBefore = await redis.commandCalls()
  const commandStatsBefore = await commandStatsOf(await redis.masterUrls())
  const ticksBefore = await readTickHistogram(workerMetricsUrls())
  const sendStepsBefore = await readSendSteps()
  const windowEnd = start + seconds * 1000
  progress(`phase 1: running ${seconds} s (Small due at +${SMALL_DELAY_MS / 1000} s)`)
  // Halfway through, with every tenant sending: the pacer's leader dies as a crash or an OOM kill would.
  const killing =
    candidates && !args['no-kill']
      ? sleep(Math.max(0, start + (seconds * 1000) / 2 - Date.now())).then(async () => {
          const kill = await (candidates as PacerCandidates).killLeader()
          progress(`phase 1: SIGKILLed the pacer leader ${kill.killed}; ${kill.replacement} started`)
        })
      : undefined
  const publishedBefore = await relayPublished()
  const { sentAt: otpSentAt, answeredAt: otpAnsweredAt } = await otpLoop(windowEnd, postOtp)
  await killing
  const publishedAfter = await relayPublished()
  const commands = (await redis.commandCalls()) - commandsBefore
  const commandsByName = redisDelta(
    commandStatsBefore,
    await commandStatsOf(await redis.masterUrls()),
  ).byCommand
  const pacerTick = tickSummary(subtract(await readTickHistogram(workerMetricsUrls()), ticksBefore))
  const sendStepsAfter = await readSendSteps()
  const maxBulkDepth = await depth.stop()
  const governorMinFactor = round(1 - (await governorCut.stop()), 2)
  await sleep(1_000)
  const deliveries = (await readSink(platform.inboxUrl, start)).filter((d) => d.at <= windowEnd + 1_000)
  await cancelCampaigns(sql, campaigns)
  const exactlyOnce = candidates
    ? await checkExactlyOnce(sql, {
        inboxUrl: platform.inboxUrl,
        mailDomain: mailDomain(platform.config),
        campaignIds: campaigns,
      })
    : undefined
  const figures = phaseOneFigures({
    deliveries,
    windowStart: start,
    windowEnd,
    smallSendAt,
    otpSentAt,
    commands,
    maxBulkDepth,
  })
  const steps = await otpSteps(sql, {
    domain: OTP_DOMAIN,
    sentAt: otpSentAt,
    answeredAt: otpAnsweredAt,
    deliveries,
  })
  const smallSteps = await firstSendSteps(sql, {
    tenantId: tenants.get('small') as string,
    sendAt: smallSendAt,
    firstSendMs: figures.smallTenantFirstSendMs,
  })
  return {
    ...figures,
    otpUnloadedP50Ms: otpUnloaded.p50,
    otpUnloadedP99Ms: otpUnloaded.p99,
    otpUnloadedSteps: otpUnloaded.steps,
    otpUnloadedSendSteps: otpUnloaded.sendSteps,
    otpSendSteps: summariesSince(sendStepsBefore, sendStepsAfter),
    // The dozen commands Redis ran most in the phase (scripts' own commands under their names).
    redisCommandsPerEmailByCommand: commandsPerEmail(commandsByName, figures.delivered, 12),
    smallFirstSendSteps: smallSteps,
    pacerTick,
    governorMinFactor,
    otpSteps: steps,
    outboxPublishedBy: Object.fromEntries(
      Object.entries(publishedAfter).map(([name, after]) => [
        name,
        after === null || publishedBefore[name] == null ? null : after - (publishedBefore[name] as number),
      ]),
    ),
    ...(exactlyOnce ? { exactlyOnce } : {}),
  }
}

/** INFO commandstats summed over the queue Redis's masters (a replica repeats its master's writes). */
async function commandStatsOf(urls: string[]): Promise<RedisCommandStats> {
  const admins = urls.map((url) => new Redis(url, { maxRetriesPerRequest: 1 }))
  try {
    return sumCommandStats(await Promise.all(admins.map(readRedisCommandStats)))
  } finally {
    for (const admin of admins) admin.disconnect()
  }
}

/**
 * Rows each worker process's relay published so far (its /metrics): whether the login codes went
 * through the transactional process's relay or waited for the bulk process's.
 */
async function relayPublished(): Promise<Record<string, number | null>> {
  if (workerLayout !== 'split') return { worker: await outboxPublished(platform.metricsUrl) }
  const txMetrics = new URL(platform.metricsUrl)
  txMetrics.port = String(Number(txMetrics.port) + 1)
  return {
    worker: await outboxPublished(platform.metricsUrl),
    'worker-tx': await outboxPublished(txMetrics.toString()),
  }
}

async function waitForEmptyBulk(): Promise<void> {
  const deadline = Date.now() + 60_000
  while ((await bulkDepth()) > 0 && Date.now() < deadline) await sleep(200)
}

async function fairlanePhaseTwo(): Promise<{
  jainIndex: number | null
  shares: Record<string, number>
  emailsPerSec: number
}> {
  await waitForEmptyBulk()
  const count = 10_000
  progress(`phase 2: four tenants at 1,000/s each, weights 1, 1, 2, 4, ${count} recipients each`)
  const start = Date.now() + START_DELAY_MS + 2_000
  for (const spec of WEIGHTED) {
    const tenantId = await createBenchTenant(sql, spec.name, spec)
    await seedCampaign(sql, { tenantId, count, domain: spec.domain, sendAt: new Date(start) })
  }
  await sleep(Math.max(0, start - Date.now()))
  // Shares are read once every tenant has work in the queue: skip the first seconds of dispatch.
  const measureFrom = start + 5_000
  await sleep(5_000 + phase2Seconds * 1000)
  const measureTo = measureFrom + phase2Seconds * 1000
  const deliveries = (await readSink(platform.inboxUrl, measureFrom)).filter((d) => d.at < measureTo)
  return { ...weightedShares(deliveries, WEIGHTED), emailsPerSec: round(deliveries.length / phase2Seconds) }
}

async function baselinePhaseOne(): Promise<PhaseOneResult> {
  const baseline = await createBaseline({
    redisUrl: redis.url,
    smtpPort: platform.smtpPort,
    concurrency: 20,
    connections: 8,
  })
  try {
    progress('baseline phase 1: enqueueing the same audience into one FIFO queue')
    const jobsFor = (spec: TenantSpec, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        tenant: spec.name,
        to: `r${i + 1}@${spec.domain}`,
        name: `Reader ${i + 1}`,
        ratePerSec: spec.ratePerSec,
      }))
    await baseline.enqueue(jobsFor(BIG, sizes.big))
    for (const medium of MEDIUMS) await baseline.enqueue(jobsFor(medium, sizes.medium))
    await clearSink()
    const start = Date.now()
    const smallSendAt = start + SMALL_DELAY_MS
    const windowEnd = start + seconds * 1000
    const baselineQueue = new Queue('baseline', {
      connection: probe,
      prefix: queuePrefix('fl-baseline', 'baseline'),
    })
    const depth = sampleMax(200, async () => {
      const counts = await baselineQueue.getJobCounts('waiting', 'active', 'delayed')
      return Object.values(counts).reduce((sum, n) => sum + n, 0)
    })
    const commandsBefore = await redis.commandCalls()
    baseline.start()
    const smallTimer = setTimeout(() => {
      baseline
        .enqueue(jobsFor(SMALL, sizes.small))
        .catch((error: Error) => progress(`small enqueue failed: ${error.message}`))
    }, SMALL_DELAY_MS)
    progress(`baseline phase 1: running ${seconds} s`)
    const { sentAt: otpSentAt } = await otpLoop(windowEnd, (to) =>
      baseline.enqueue([{ tenant: 'otp', to, name: 'OTP', ratePerSec: 1_000 }]),
    )
    clearTimeout(smallTimer)
    const commands = (await redis.commandCalls()) - commandsBefore
    const maxBulkDepth = await depth.stop()
    const deliveries = (await readSink(platform.inboxUrl, start)).filter((d) => d.at <= windowEnd + 1_000)
    progress(`baseline phase 1: ${baseline.requeued} over-limit jobs re-added with a 10 s delay`)
    return phaseOneFigures({
      deliveries,
      windowStart: start,
      windowEnd,
      smallSendAt,
      otpSentAt,
      commands,
      maxBulkDepth,
    })
  } finally {
    await baseline.close()
  }
}

async function baselinePhaseTwo(): Promise<{
  jainIndex: number | null
  shares: Record<string, number>
  emailsPerSec: number
}> {
  const baseline = await createBaseline({
    redisUrl: redis.url,
    smtpPort: platform.smtpPort,
    concurrency: 20,
    connections: 8,
  })
  try {
    const count = 10_000
    for (const spec of WEIGHTED) {
      await baseline.enqueue(
        Array.from({ length: count }, (_, i) => ({
          tenant: spec.name,
          to: `r${i + 1}@${spec.domain}`,
          name: `Reader ${i + 1}`,
          ratePerSec: spec.ratePerSec,
        })),
      )
    }
    await clearSink()
    const start = Date.now()
    baseline.start()
    await sleep(5_000 + phase2Seconds * 1000)
    const measureFrom = start + 5_000
    const deliveries = (await readSink(platform.inboxUrl, measureFrom)).filter(
      (d) => d.at < measureFrom + phase2Seconds * 1000,
    )
    return { ...weightedShares(deliveries, WEIGHTED), emailsPerSec: round(deliveries.length / phase2Seconds) }
  } finally {
    await baseline.close()
  }
}

async function scaleMode(): Promise<Record<string, unknown>> {
  progress(`scale: seeding one campaign of ${sizes.big} recipients`)
  const tenantId = await createBenchTenant(sql, 'big', BIG)
  const seeded = Date.now()
  const sendAt = new Date(Date.now() + 600_000)
  const campaignId = await seedCampaign(sql, { tenantId, count: sizes.big, domain: BIG.domain, sendAt })
  progress(`scale: seeded in ${round((Date.now() - seeded) / 1000)} s`)
  await sleep(2_000)
  const idle = await redis.usedMemory()
  const memory = sampleMax(500, redis.usedMemory)
  const depth = sampleMax(200, bulkDepth)
  const start = Date.now()
  await sql`update campaigns set send_at = now() where id = ${campaignId}`
  let dispatchedAt: number | null = null
  const deadline = start + 30 * 60_000
  while (Date.now() < deadline) {
    const [row] = await sql<{ status: string }[]>`select status from campaigns where id = ${campaignId}`
    if (row && row.status !== 'scheduled' && row.status !== 'dispatching') {
      dispatchedAt = Date.now()
      break
    }
    await sleep(500)
  }
  progress('scale: dispatched; sending for 15 s more')
  await sleep(15_000)
  const [size] = await sql<{ bytes: string }[]>`select pg_database_size(current_database())::text as bytes`
  const [sent] = await sql<
    { count: number }[]
  >`select count(*)::int as count from messages where campaign_id = ${campaignId} and status = 'sent'`
  const maxMemory = await memory.stop()
  return {
    mode: 'scale',
    bigTenantBacklog: sizes.big,
    dispatchSeconds: dispatchedAt === null ? null : round((dispatchedAt - start) / 1000),
    redisIdleMb: round(idle / 2 ** 20),
    redisMaxAboveIdleMb: round((maxMemory - idle) / 2 ** 20),
    maxBulkDepth: await depth.stop(),
    postgresDatabaseMb: round(Number(size?.bytes ?? 0) / 2 ** 20),
    sentWhileMeasured: sent?.count ?? 0,
  }
}

try {
  if (args.tenants !== undefined) {
    const pinger = redis.client()
    console.log(
      JSON.stringify(
        await manyTenantsMode({
          sql,
          inboxUrl: platform.inboxUrl,
          // worker (bulk) and worker-tx: either may hold the pacer's lease.
          metricsUrls: workerMetricsUrls(),
          commandCalls: redis.commandCalls,
          redisPing: () => pinger.ping(),
          databaseUrl: platform.databaseUrl,
          tenants: Number(args.tenants),
          smallRecipients: Number(args['small-recipients']),
          bigRecipients: sizes.big,
          firstSendTimeoutSeconds: Number(args['first-send-timeout']),
          jainSeconds: Number(args['jain-seconds']),
          seedPending: args['seed-pending'],
          dueSpreadSeconds: DUE_SPREAD_SECONDS,
          warmUpTenants: Number(args['warm-up-tenants']),
          progress,
        }).finally(() => pinger.disconnect()),
      ),
    )
  } else if (sizes.big >= 200_000) {
    console.log(JSON.stringify(await scaleMode()))
  } else {
    const phase1 = await fairlanePhaseOne()
    progress(`phase 1: ${JSON.stringify(phase1)}`)
    const phase2 = await fairlanePhaseTwo()
    progress(`phase 2: ${JSON.stringify(phase2)}`)
    // Read now: the baseline stops the workers.
    const leadership = candidates?.leadership()
    let baseline: Record<string, unknown> | undefined
    // The baseline's own queue and limiter speak to one Redis node.
    if (!args['no-baseline'] && !args['on-cluster']) {
      await candidates?.stop()
      await platform.stopProcess('worker')
      await platform.stopProcess('worker-tx')
      const base1 = await baselinePhaseOne()
      progress(`baseline phase 1: ${JSON.stringify(base1)}`)
      const base2 = await baselinePhaseTwo()
      progress(`baseline phase 2: ${JSON.stringify(base2)}`)
      baseline = {
        ...base1,
        jainIndex: base2.jainIndex,
        shares: base2.shares,
        phase2EmailsPerSec: base2.emailsPerSec,
      }
    }
    console.log(
      JSON.stringify({
        ...phase1,
        jainIndex: phase2.jainIndex,
        shares: phase2.shares,
        phase2EmailsPerSec: phase2.emailsPerSec,
        workerLayout,
        redis: redis.kind,
        ...(leadership ? { workerProcesses: workers, leadership } : {}),
        ...(baseline ? { baseline } : {}),
      }),
    )
  }
} finally {
  await candidates?.stop()
  await Promise.all(allLaneQueues(lanes).map((queue) => queue.close()))
  probe.disconnect()
  await sql.end({ timeout: 5 })
  await platform.stop()
  await redis.stop()
}
