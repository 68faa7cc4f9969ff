import { jainIndex } from '@fairlane/fairness'
import postgres, { type Sql } from 'postgres'
import { percentile, round } from '../stats'
import { type DueSchedule, dispatchPending, dispatchPendingSpread, dueAtOf, scheduleDue } from './due-spread'
import { type Delivery, readSink } from './measure'
import { createBenchTenant, NEWSLETTER_HTML, seedCampaign } from './seed'

/**
 * `pnpm bench:fairness --tenants 10000`: many small tenants and one big one, all due at once, to
 * see that the pacer's tick does not grow with the tenants waiting and that each small tenant gets
 * its first turn soon (fq_codel's new-flows rule in `createActiveFlows`).
 *
 * Measured:
 *  - the pacer's tick, p99, from the workers' `fairlane_pacer_tick_seconds` histogram (its bucket
 *    bounds: "≤ 20 ms" is the 0.02 bucket), leader ticks only, over the run;
 *  - each small tenant's first send after its campaign was due, and after its first row became
 *    pending (`messages.created_at`): the second is the pacer's part, the first adds the dispatch;
 *  - Jain's index over the small tenants' sends in a window that starts once every small tenant has
 *    pending mail (its dispatch done) and lasts `jainSeconds`: only then do all of them compete, and
 *    a tenant dispatched earlier is not counted as favoured for the sends it had before the others
 *    existed. Equal plans and weights make equal counts fair; round robin keeps them within one of
 *    each other, so the window must give each tenant several sends for the index to mean anything
 *    (its mean is reported beside it);
 *  - Redis commands per email delivered over the run.
 */

export interface ManyTenantsInput {
  sql: Sql
  inboxUrl: string
  /** The workers' metrics pages (`worker`, `worker-tx`): whichever leads the pacer has the ticks. */
  metricsUrls: string[]
  commandCalls: () => Promise<number>
  /**
   * A round trip to Redis (a PING on a connection of its own): with a one-row commit on a PostgreSQL
   * connection of its own (`probeFloor`), the floor a tick stands on while the run loads the machine.
   */
  redisPing: () => Promise<unknown>
  /** PostgreSQL for the floor probe: one connection of its own, not the seeding pool's. */
  databaseUrl: string
  tenants: number
  smallRecipients: number
  bigRecipients: number
  /** Give up waiting for every small tenant's first send after this long. */
  firstSendTimeoutSeconds: number
  jainSeconds: number
  /**
   * `--seed-pending`: every campaign's messages written pending in one statement at due time, as if
   * dispatched at once, so the figures are the pacer's alone (dispatching thousands of campaigns
   * one transaction each takes minutes on this machine, and would be measured instead).
   */
  seedPending: boolean
  /**
   * `--due-spread-seconds`: the small tenants' campaigns come due evenly over this many seconds
   * (`due-spread.ts`), not all at once (0); each first send is counted from its own tenant's due time.
   */
  dueSpreadSeconds: number
  /**
   * Tenants (`mt-w-<n>`, 5 recipients each, all at once) whose campaigns are sent through the bulk
   * lane before anything is measured: the workers' first campaign sends open their connections and
   * compile their hot code while the small tenants' first sends are being timed otherwise (the
   * figures of three cold runs: 3, 51 and 0 first sends over 1 s, all due in the run's first
   * seconds). Phase 1 warms up with login codes for the same reason. None of the measured
   * campaigns is read before it is due. 0: no warm-up.
   */
  warmUpTenants: number
  progress: (line: string) => void
}

const WARM_UP_RECIPIENTS = 5

const SMALL_PLAN = { ratePerSec: 50, burst: 10, weight: 1 }
const BIG_PLAN = { ratePerSec: 300, burst: 60, weight: 1 }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function manyTenantsMode(input: ManyTenantsInput): Promise<Record<string, unknown>> {
  const { sql, progress } = input
  progress(
    `tenants: seeding ${input.tenants} small tenants × ${input.smallRecipients} and one of ${input.bigRecipients}`,
  )
  const seededAt = Date.now()
  const far = new Date(Date.now() + 3_600_000)
  const bigId = await createBenchTenant(sql, 'mt-big', BIG_PLAN)
  const bigCampaign = await seedCampaign(sql, {
    tenantId: bigId,
    count: input.bigRecipients,
    domain: 'big.mt.bench.test',
    sendAt: far,
  })
  const smallIds = await seedSmallTenants(sql, SMALL, input.tenants, input.smallRecipients, far)
  const warmUpIds =
    input.warmUpTenants > 0
      ? await seedSmallTenants(sql, WARM_UP, input.warmUpTenants, WARM_UP_RECIPIENTS, far)
      : []
  // Statistics for the rows just written, as autovacuum would soon have them. This machine's
  // PostgreSQL runs with autovacuum off (a CI setting): never analyzed, `list_members` looked like 200
  // lists of 2,750 members to the planner, and every slice of the stand-in dispatcher below read all
  // 550,000 of them in a sequential scan (≈ 240 ms of a core each 100 ms slice: the bench's own load,
  // charged to the platform on two cores).
  await sql`analyze tenants, lists, contacts, list_members, campaigns`
  progress(`tenants: seeded in ${round((Date.now() - seededAt) / 1000)} s`)
  const warmUp = warmUpIds.length > 0 ? await warmUpBulk(input, warmUpIds) : null

  const ticksBefore = await readTickHistogram(input.metricsUrls)
  const stepsBefore = await readHistograms(input.metricsUrls, 'fairlane_pacer_tick_step_seconds', 'step')
  const commandsBefore = await input.commandCalls()
  const schedule = await makeDue(sql, input, bigCampaign)
  let spreadStopped = false
  const spreading =
    input.seedPending && input.dueSpreadSeconds > 0
      ? dispatchPendingSpread(sql, schedule, smallIds, { sliceMs: 100, stopped: () => spreadStopped })
      : Promise.resolve()
  const dueAtMs = schedule.startMs
  const floor = probeFloor(input)

  const firstSend = new Map<number, number>()
  const deadline = dueAtMs + (input.dueSpreadSeconds + input.firstSendTimeoutSeconds) * 1000
  let seen = 0
  try {
    while (firstSend.size < input.tenants && Date.now() < deadline) {
      await sleep(2_000)
      const deliveries = await readSink(input.inboxUrl, dueAtMs)
      for (const delivery of deliveries.slice(seen)) noteFirstSend(firstSend, delivery)
      seen = deliveries.length
      progress(`tenants: ${firstSend.size} of ${input.tenants} small tenants had a first send`)
    }
  } finally {
    spreadStopped = true
    await spreading
    floor.stop()
  }
  const floorFigures = await floor.figures
  const pendingSince = await firstPendingByTenant(sql, smallIds)
  const releasedSince = await firstReleaseByTenant(sql, smallIds)
  const allPendingAtMs = Math.max(...pendingSince.values())
  const jainFrom = Math.max(allPendingAtMs, Date.now())
  progress(`tenants: every small tenant has pending mail; measuring shares for ${input.jainSeconds} s`)
  await sleep(Math.max(0, jainFrom + input.jainSeconds * 1000 + 1_000 - Date.now()))
  const commands = (await input.commandCalls()) - commandsBefore
  const ticks = subtract(await readTickHistogram(input.metricsUrls), ticksBefore)
  const steps = await readHistograms(input.metricsUrls, 'fairlane_pacer_tick_step_seconds', 'step')
  const deliveries = await readSink(input.inboxUrl, dueAtMs)
  await stopSending(sql)

  const pacerTick = tickSummary(ticks)
  const firstSends = firstSendFigures(firstSend, schedule, pendingSince, smallIds, input.tenants)
  const smallTenantsJain = jainOverWindow(deliveries, input.tenants, jainFrom, input.jainSeconds)
  return {
    // CONTRACT.md's fields first (the tick's p99 is its histogram bucket's upper bound).
    tenants: input.tenants,
    pacerTickP99Ms: pacerTick.p99AtMostMs,
    smallFirstSendP99Ms: firstSends.smallFirstSendAfterDueMs?.p99 ?? null,
    jainSmall: smallTenantsJain.index,
    mode: 'tenants',
    smallTenants: input.tenants,
    smallRecipients: input.smallRecipients,
    bigRecipients: input.bigRecipients,
    pacerTick,
    // Where the ticks' time went (steps that run at once overlap).
    pacerTickSteps: summariesSince(stepsBefore, steps),
    floor: floorFigures,
    dueSpreadSeconds: input.dueSpreadSeconds,
    warmUp,
    ...firstSends,
    smallFirstReleaseAfterPendingMs: spanSummary(pendingSince, releasedSince),
    smallFirstSendAfterReleaseMs: spanSummary(releasedSince, firstSend),
    dispatchDoneAfterDueMs: round(allPendingAtMs - dueAtMs),
    smallTenantsJain,
    smallTenantsJainOverRounds: jainOverRounds(deliveries, input.tenants),
    bigSendsPerSec: round(
      deliveries.filter(
        (d) =>
          d.to.endsWith('@big.mt.bench.test') &&
          d.at >= jainFrom &&
          d.at < jainFrom + input.jainSeconds * 1000,
      ).length / input.jainSeconds,
    ),
    delivered: deliveries.length,
    redisCommandsPerEmail: round(commands / Math.max(1, deliveries.length), 1),
  }
}

/**
 * The rest of the bench's mail cancelled, so the run ends. One update of every waiting row met the
 * workers' claims and marks, which lock rows of many tenants at once, in deadlocks (five in a row
 * once, losing the run's figures): the rows are cancelled in chunks that skip the rows a worker holds
 * at that instant, until none waits.
 */
async function stopSending(sql: Sql): Promise<void> {
  await sql`update campaigns set status = 'cancelled', cancelled_at = now() where tenant_id in (select id from tenants where name like 'mt-%')`
  for (;;) {
    const cancelled = await sql`
      update messages set status = 'cancelled' where id in (
        select id from messages
        where status in ('pending', 'queued') and tenant_id in (select id from tenants where name like 'mt-%')
        limit 20000
        for update skip locked)`
    if (cancelled.count === 0) return
  }
}

/**
 * The campaigns made due: with `--seed-pending` all at once now (one statement; spread: Big's rows
 * now, then the small tenants from the schedule's start by `dispatchPendingSpread`), else their send
 * times set for the dispatcher.
 */
async function makeDue(sql: Sql, input: ManyTenantsInput, bigCampaign: string): Promise<DueSchedule> {
  const spreadSeconds = input.dueSpreadSeconds
  if (!input.seedPending) {
    return scheduleDue(sql, { bigCampaign, tenants: input.tenants, spreadSeconds })
  }
  if (spreadSeconds > 0) {
    // Big's 50,000 rows first, in one statement (seconds): the small tenants' due times start after
    // it, so the stand-in dispatcher writes each tenant's rows at its due time. Started before it,
    // the first ~300 tenants' rows were written up to 2.6 s late, and every first send over 1 s of
    // that run fell in its first 10 s (after them, every one within 1 s, the slowest 0.92 s).
    await dispatchPending(sql, { kind: 'big' })
    return { startMs: Date.now(), tenants: input.tenants, spreadSeconds }
  }
  await dispatchPending(sql, { kind: 'all' })
  // The commit is "due".
  return { startMs: Date.now(), tenants: input.tenants, spreadSeconds: 0 }
}

/** The measured small tenants, and the warm-up's: their names' prefix and their contacts' domains. */
interface SmallTenantKind {
  /** `mt-s-` / `mt-w-`: five characters, the tenant's number after them. */
  prefix: string
  /** Contacts `r<g>@<letter><n>.mt.bench.test`. */
  letter: string
}
const SMALL: SmallTenantKind = { prefix: 'mt-s-', letter: 's' }
const WARM_UP: SmallTenantKind = { prefix: 'mt-w-', letter: 'w' }

/** Tenants `<prefix><i>` with a list of `recipients` contacts each and a campaign to it, in five statements. */
async function seedSmallTenants(
  sql: Sql,
  kind: SmallTenantKind,
  count: number,
  recipients: number,
  sendAt: Date,
): Promise<string[]> {
  const named = `${kind.prefix}%`
  return sql.begin(async (tx) => {
    const tenants = await tx<{ id: string; n: number }[]>`
      insert into tenants (name, rate_per_sec, burst, weight)
      select ${kind.prefix} || g, ${SMALL_PLAN.ratePerSec}, ${SMALL_PLAN.burst}, ${SMALL_PLAN.weight}
      from generate_series(1, ${count}) g
      returning id, substring(name from 6)::int as n`
    await tx`
      insert into lists (tenant_id, name)
      select id, 'mt' from tenants where name like ${named}`
    await tx`
      insert into contacts (tenant_id, email, name, attributes)
      select t.id, 'r' || g || '@' || ${kind.letter} || substring(t.name from 6) || '.mt.bench.test', 'Reader ' || g,
        jsonb_build_object('city', (array['Hanoi','Lyon','Porto','Austin','Osaka'])[1 + g % 5])
      from tenants t cross join generate_series(1, ${recipients}) g
      where t.name like ${named}`
    await tx`
      insert into list_members (tenant_id, list_id, contact_id)
      select c.tenant_id, l.id, c.id from contacts c
      join lists l on l.tenant_id = c.tenant_id and l.name = 'mt'
      join tenants t on t.id = c.tenant_id and t.name like ${named}`
    await tx`
      insert into campaigns (tenant_id, name, subject, html, list_id, status, send_at)
      select l.tenant_id, 'Digest', 'Your December digest, {{name}}', ${NEWSLETTER_HTML}, l.id, 'scheduled', ${sendAt}
      from lists l join tenants t on t.id = l.tenant_id and t.name like ${named}
      where l.name = 'mt'`
    const ids: string[] = []
    for (const tenant of tenants) ids[tenant.n] = tenant.id
    return ids
  })
}

/** The warm-up tenants' campaigns made pending at once, and every one of their mails delivered. */
async function warmUpBulk(input: ManyTenantsInput, warmUpIds: string[]) {
  const startedAtMs = Date.now()
  const ids = warmUpIds.filter(Boolean)
  const expected = ids.length * WARM_UP_RECIPIENTS
  input.progress(`tenants: warming up with ${ids.length} campaigns of ${WARM_UP_RECIPIENTS}`)
  await dispatchPending(input.sql, { kind: 'small', ids })
  const deadline = startedAtMs + 60_000
  for (;;) {
    const delivered = (await readSink(input.inboxUrl, startedAtMs)).filter((delivery) =>
      /@w\d+\.mt\.bench\.test$/.test(delivery.to),
    ).length
    if (delivered >= expected) break
    if (Date.now() > deadline) {
      throw new Error(`the warm-up delivered ${delivered} of ${expected} mails within 60 s`)
    }
    await sleep(250)
  }
  return { tenants: ids.length, mails: expected, seconds: round((Date.now() - startedAtMs) / 1000) }
}

function noteFirstSend(firstSend: Map<number, number>, delivery: Delivery): void {
  const match = /@s(\d+)\.mt\.bench\.test$/.exec(delivery.to)
  if (!match) return
  const index = Number(match[1])
  const known = firstSend.get(index)
  if (known === undefined || delivery.at < known) firstSend.set(index, delivery.at)
}

async function firstPendingByTenant(sql: Sql, smallIds: string[]): Promise<Map<number, number>> {
  const rows = await sql<{ tenant_id: string; at: Date }[]>`
    select tenant_id, min(created_at) as at from messages
    where tenant_id in (select id from tenants where name like 'mt-s-%') and lane = 'bulk'
    group by tenant_id`
  return byBenchIndex(rows, smallIds)
}

/** Per-tenant times keyed by the small tenant's bench index (its position in `smallIds`). */
function byBenchIndex(rows: ReadonlyArray<{ tenant_id: string; at: Date }>, smallIds: string[]) {
  const indexOf = new Map<string, number>()
  smallIds.forEach((id, index) => {
    indexOf.set(id, index)
  })
  const since = new Map<number, number>()
  for (const row of rows) {
    const index = indexOf.get(row.tenant_id)
    if (index !== undefined) since.set(index, row.at.getTime())
  }
  return since
}

/** Each small tenant's first release (its first `queued` event: the pacer's claim), by bench index. */
async function firstReleaseByTenant(sql: Sql, smallIds: string[]): Promise<Map<number, number>> {
  const rows = await sql<{ tenant_id: string; at: Date }[]>`
    select tenant_id, min(at) as at from message_events
    where tenant_id in (select id from tenants where name like 'mt-s-%') and type = 'queued'
    group by tenant_id`
  return byBenchIndex(rows, smallIds)
}

/** p50 / p99 / max of `to − from` over the tenants both know (ms): where a first send's time went. */
function spanSummary(from: Map<number, number>, to: Map<number, number>) {
  return summary(
    [...to].flatMap(([index, at]) => {
      const start = from.get(index)
      return start === undefined ? [] : [at - start]
    }),
  )
}

function summary(values: number[]) {
  if (values.length === 0) return null
  return {
    p50: round(percentile(values, 50)),
    p99: round(percentile(values, 99)),
    max: round(Math.max(...values)),
  }
}

function firstSendFigures(
  firstSend: Map<number, number>,
  schedule: DueSchedule,
  pendingSince: Map<number, number>,
  smallIds: string[],
  tenants: number,
) {
  const afterDue = [...firstSend].map(([index, at]) => at - dueAtOf(schedule, index))
  // Where in the schedule the late ones were due: by 10 s of due time from its start.
  const lateByDueTenSeconds: Record<string, number> = {}
  for (const [index, at] of firstSend) {
    const due = dueAtOf(schedule, index)
    if (at - due <= 1_000) continue
    const bin = String(Math.floor((due - schedule.startMs) / 10_000) * 10)
    lateByDueTenSeconds[bin] = (lateByDueTenSeconds[bin] ?? 0) + 1
  }
  return {
    smallTenantsWithFirstSend: firstSend.size,
    smallTenantsMissing: tenants - firstSend.size,
    smallFirstSendAfterDueMs: summary(afterDue),
    smallFirstSendOver1sAfterDue: afterDue.filter((ms) => ms > 1_000).length,
    smallFirstSendOver1sByDueTenSeconds: lateByDueTenSeconds,
    smallFirstSendAfterPendingMs: spanSummary(pendingSince, firstSend),
    seededSmallTenants: smallIds.filter(Boolean).length,
  }
}

function jainOverWindow(deliveries: Delivery[], tenants: number, fromMs: number, seconds: number) {
  const counts = new Array<number>(tenants).fill(0)
  for (const delivery of deliveries) {
    if (delivery.at < fromMs || delivery.at >= fromMs + seconds * 1000) continue
    const match = /@s(\d+)\.mt\.bench\.test$/.exec(delivery.to)
    if (match) counts[Number(match[1]) - 1] = (counts[Number(match[1]) - 1] ?? 0) + 1
  }
  const sum = counts.reduce((a, b) => a + b, 0)
  return {
    index: round(jainIndex(counts), 3),
    windowSeconds: seconds,
    meanSendsPerTenant: round(sum / tenants, 2),
    minSends: Math.min(...counts),
    maxSends: Math.max(...counts),
  }
}

/**
 * Jain's index over the small tenants' sends among the first k × tenants of them (k whole rounds:
 * as many as were sent). Equal weights and plans: after k rounds a fair scheduler has given each
 * tenant k sends, whenever each joined; a window of time instead gives each a fraction of a send
 * when ten thousand share a few hundred sends a second, and 0-or-1 counts say nothing.
 */
function jainOverRounds(deliveries: Delivery[], tenants: number) {
  const small = deliveries
    .flatMap((delivery) => {
      const match = /@s(\d+)\.mt\.bench\.test$/.exec(delivery.to)
      return match ? [{ index: Number(match[1]) - 1, at: delivery.at }] : []
    })
    .sort((a, b) => a.at - b.at)
  const rounds = Math.floor(small.length / tenants)
  if (rounds === 0) return { index: null, rounds: 0 }
  const counts = new Array<number>(tenants).fill(0)
  for (const send of small.slice(0, rounds * tenants)) counts[send.index] = (counts[send.index] ?? 0) + 1
  return {
    index: round(jainIndex(counts), 3),
    rounds,
    minSends: Math.min(...counts),
    maxSends: Math.max(...counts),
  }
}

type Histogram = Map<number, number>

/** `fairlane_pacer_tick_seconds` buckets (le → cumulative count), summed over the workers. */
export async function readTickHistogram(urls: string[]): Promise<Histogram> {
  return (await readHistograms(urls, 'fairlane_pacer_tick_seconds')).get('') ?? new Map()
}

/**
 * A histogram's buckets (le → cumulative count) per value of its `split` label ('' without one),
 * summed over the workers.
 */
export async function readHistograms(
  urls: string[],
  name: string,
  split?: string,
  where: Record<string, string> = {},
): Promise<Map<string, Histogram>> {
  const histograms = new Map<string, Histogram>()
  const bucketLine = new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\d+)`)
  for (const url of urls) {
    const response = await fetch(url).catch(() => null)
    if (!response?.ok) continue
    for (const line of (await response.text()).split('\n')) {
      const match = bucketLine.exec(line)
      if (!match) continue
      const labels = new Map(
        [...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]),
      )
      const rawLe = labels.get('le')
      if (rawLe === undefined) continue
      if (Object.entries(where).some(([key, value]) => labels.get(key) !== value)) continue
      const le = rawLe === '+Inf' ? Number.POSITIVE_INFINITY : Number(rawLe)
      const key = split ? (labels.get(split) ?? '') : ''
      const buckets = histograms.get(key) ?? new Map<number, number>()
      buckets.set(le, (buckets.get(le) ?? 0) + Number(match[2]))
      histograms.set(key, buckets)
    }
  }
  return histograms
}

/** Each labelled histogram's count, p50 and p99 (bucket bounds, ms) between two `readHistograms`. */
export function summariesSince(
  before: ReadonlyMap<string, Histogram>,
  after: ReadonlyMap<string, Histogram>,
): Record<string, ReturnType<typeof tickSummary>> {
  return Object.fromEntries(
    [...after].map(([key, buckets]) => [key, tickSummary(subtract(buckets, before.get(key) ?? new Map()))]),
  )
}

export function subtract(after: Histogram, before: Histogram): Histogram {
  return new Map([...after].map(([le, count]) => [le, count - (before.get(le) ?? 0)]))
}

export function tickSummary(buckets: Histogram) {
  const bounds = [...buckets.keys()].sort((a, b) => a - b)
  const total = buckets.get(Number.POSITIVE_INFINITY) ?? 0
  const quantile = (q: number) => {
    for (const le of bounds)
      if ((buckets.get(le) ?? 0) >= q * total) return le === Number.POSITIVE_INFINITY ? null : le * 1000
    return null
  }
  return { ticks: total, p50AtMostMs: quantile(0.5), p99AtMostMs: quantile(0.99) }
}

/**
 * The floor under a tick, measured beside it for the whole spread: every 50 ms, on connections of
 * its own, one autocommitted one-row insert into PostgreSQL (a tick commits its claim: at least
 * this) and one Redis PING (a tick reads the lane's depth and adds jobs: at least two of these).
 * A tick's p99 cannot be below the commit's and two PINGs' p99 while the machine carries the run,
 * and a first send cannot be quicker than the longest commit stall.
 */
function probeFloor(input: Pick<ManyTenantsInput, 'databaseUrl' | 'redisPing'>): {
  stop(): void
  figures: Promise<Record<string, unknown>>
} {
  let stopped = false
  const figures = (async () => {
    const probe = postgres(input.databaseUrl, { max: 1, onnotice: () => {} })
    const commits: number[] = []
    const pings: number[] = []
    try {
      await probe`CREATE TABLE IF NOT EXISTS bench_commit_probe (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`
      while (!stopped) {
        const startedAtMs = performance.now()
        await probe`INSERT INTO bench_commit_probe DEFAULT VALUES`
        const committedAtMs = performance.now()
        await input.redisPing()
        pings.push(performance.now() - committedAtMs)
        commits.push(committedAtMs - startedAtMs)
        await sleep(50)
      }
    } finally {
      await probe.end()
    }
    const summary = (samples: number[]) => ({
      samples: samples.length,
      p50Ms: round(percentile(samples, 50)),
      p99Ms: round(percentile(samples, 99)),
      maxMs: round(Math.max(...samples)),
      over1sCount: samples.filter((ms) => ms > 1000).length,
    })
    return { postgresCommit: summary(commits), redisPing: summary(pings) }
  })()
  return {
    stop() {
      stopped = true
    },
    figures,
  }
}
