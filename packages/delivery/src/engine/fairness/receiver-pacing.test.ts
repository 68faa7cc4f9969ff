import {
  type BacklogTenant,
  createReceiverStage,
  type ReceiverBacklogStore,
  type ReceiverStageOptions,
  type ReleasedMessage,
  releaseByReceiver,
} from '@fairlane/core/pacing'
import { describe, expect, it } from 'vitest'
import { createReceiverPlanner } from './receiver-planner'

/**
 * The receiver pacer's tick (`releaseByReceiver`) with the worker's planner (fair-share + provider
 * budgets + tenant allowances), over pending rows kept in memory as PostgreSQL would keep them.
 */

interface Row {
  messageId: string
  tenantId: string
  domain: string
  createdAt: string
  status: 'pending' | 'queued'
}

interface TenantPlan {
  weight: number
  ratePerSec: number
  burst: number
}

const TICK_MS = 100

function harness(input: {
  plans: Record<string, TenantPlan>
  /** domain → provider; a domain missing resolves to null (DNS failing for now). */
  providers: Record<string, string>
  rates: Record<string, number>
  /** `tenant\u0000provider` → the tenant's own rate there (the provider throttled its domain alone). */
  tenantRates?: Record<string, number>
  highWater?: number
  stage?: Partial<ReceiverStageOptions>
}) {
  const rows: Row[] = []
  let sequence = 0
  let nowMs = 1_000_000
  const lane: ReleasedMessage[] = []
  const sent: Array<ReleasedMessage & { provider: string }> = []
  const lookups: string[] = []
  const held = new Map<string, (provider: string | null) => void>()
  const holdDomains = new Set<string>()
  const providerOfDomain = (domain: string) => input.providers[domain] as string

  const store: ReceiverBacklogStore = {
    async findBacklog({ cap }) {
      const tenants = new Map<string, BacklogTenant>()
      for (const row of rows) {
        if (row.status !== 'pending') continue
        const plan = input.plans[row.tenantId] as TenantPlan
        const tenant = tenants.get(row.tenantId) ?? { tenantId: row.tenantId, ...plan, backlog: 0 }
        tenant.backlog = Math.min(cap, tenant.backlog + 1)
        tenants.set(row.tenantId, tenant)
      }
      return [...tenants.values()]
    },
    async pagePending({ tenantId, after, limit }) {
      return rows
        .filter((row) => row.tenantId === tenantId && row.status === 'pending')
        .filter(
          (row) =>
            !after || [row.createdAt, row.messageId].join() > [after.createdAt, after.messageId].join(),
        )
        .slice(0, limit)
        .map(({ status: _status, ...row }) => row)
    },
    async claimByIds(wanted) {
      const claimed: ReleasedMessage[] = []
      for (const { messageId } of wanted) {
        const row = rows.find((candidate) => candidate.messageId === messageId)
        if (row?.status !== 'pending') continue
        row.status = 'queued'
        claimed.push({ messageId, tenantId: row.tenantId, generation: 0 })
      }
      return claimed
    },
    async giveBack(released) {
      for (const { messageId } of released) {
        const row = rows.find((candidate) => candidate.messageId === messageId)
        if (row) row.status = 'pending'
      }
      return released.length
    },
  }
  const stage = createReceiverStage(input.stage)
  const planner = createReceiverPlanner({ horizonMs: 1_000, providerBurstMs: 1_000 })
  const deps = {
    store,
    lane: {
      async depth() {
        return lane.length
      },
      async enqueue(released: readonly ReleasedMessage[]) {
        lane.push(...released)
      },
    },
    providers: {
      resolve(domain: string) {
        lookups.push(domain)
        if (holdDomains.has(domain)) return new Promise<string | null>((resolve) => held.set(domain, resolve))
        return Promise.resolve(input.providers[domain] ?? null)
      },
    },
    ratePerMinute: (provider: string) => input.rates[provider] ?? 0,
    tenantRatePerMinute: (tenantId: string, provider: string) =>
      input.tenantRates?.[`${tenantId}\u0000${provider}`],
    planner,
    highWater: input.highWater ?? 10_000,
    clock: { now: () => new Date(nowMs) },
    logger: { warn() {} },
  }

  return {
    rows,
    lane,
    sent,
    lookups,
    holdDomains,
    held,
    add(tenantId: string, domain: string, count: number) {
      for (let index = 0; index < count; index++) {
        sequence += 1
        rows.push({
          messageId: `${tenantId}-${domain}-${sequence}`,
          tenantId,
          domain,
          createdAt: String(sequence).padStart(9, '0'),
          status: 'pending',
        })
      }
    },
    /** One tick, then the lane's jobs are sent (the lane empties) unless `keepLane`. */
    async tick(options: { keepLane?: boolean } = {}) {
      const outcome = await releaseByReceiver(stage, deps)
      // Lets lookups started this tick answer before the next.
      await new Promise((resolve) => setImmediate(resolve))
      const released = lane.slice(lane.length - outcome.released)
      if (!options.keepLane) {
        for (const job of lane.splice(0)) {
          const row = rows.find((candidate) => candidate.messageId === job.messageId) as Row
          sent.push({ ...job, provider: providerOfDomain(row.domain) })
        }
      }
      nowMs += TICK_MS
      return { outcome, released }
    },
    sentBy(filter: { tenantId?: string; provider?: string }) {
      return sent.filter(
        (job) =>
          (filter.tenantId === undefined || job.tenantId === filter.tenantId) &&
          (filter.provider === undefined || job.provider === filter.provider),
      ).length
    },
  }
}

const generous: TenantPlan = { weight: 1, ratePerSec: 10_000, burst: 10_000 }

describe('releaseByReceiver', () => {
  it('a paused provider releases nothing, while the same tenant’s mail for other providers goes out', async () => {
    const pacer = harness({
      plans: { a: generous },
      providers: { 'paused.example': 'paused', 'ok.example': 'ok' },
      rates: { paused: 0, ok: 60_000 },
    })
    // Its oldest rows are all for the paused provider: they must not hold up the rest.
    pacer.add('a', 'paused.example', 300)
    pacer.add('a', 'ok.example', 50)
    for (let tick = 0; tick < 10; tick++) await pacer.tick()
    expect(pacer.sentBy({ provider: 'paused' })).toBe(0)
    expect(pacer.sentBy({ provider: 'ok' })).toBe(50)
    expect(pacer.rows.filter((row) => row.status === 'pending')).toHaveLength(300)
  })

  it('the stage’s bound is what no head-of-line blocking costs: rows beyond it wait behind a paused provider’s', async () => {
    const pacer = harness({
      plans: { a: generous },
      providers: { 'paused.example': 'paused', 'ok.example': 'ok' },
      rates: { paused: 0, ok: 60_000 },
      stage: { stageLimit: 100, pageSize: 50 },
    })
    pacer.add('a', 'paused.example', 300)
    pacer.add('a', 'ok.example', 50)
    for (let tick = 0; tick < 10; tick++) await pacer.tick()
    expect(pacer.sentBy({ provider: 'ok' })).toBe(0)
  })

  it('two tenants at one provider share its budget by weight', async () => {
    const pacer = harness({
      plans: { heavy: { ...generous, weight: 3 }, light: { ...generous, weight: 1 } },
      providers: { 'gmail.com': 'google' },
      // 40 a second: 4 a tick, far under both tenants' own rates.
      rates: { google: 2_400 },
    })
    pacer.add('heavy', 'gmail.com', 2_000)
    pacer.add('light', 'gmail.com', 2_000)
    await pacer.tick() // the lookup
    await pacer.tick() // the fresh budget's burst
    const before = { heavy: pacer.sentBy({ tenantId: 'heavy' }), light: pacer.sentBy({ tenantId: 'light' }) }
    for (let tick = 0; tick < 100; tick++) await pacer.tick()
    const heavy = pacer.sentBy({ tenantId: 'heavy' }) - before.heavy
    const light = pacer.sentBy({ tenantId: 'light' }) - before.light
    expect(heavy + light).toBeLessThanOrEqual(400 + 1)
    expect(heavy + light).toBeGreaterThanOrEqual(390)
    expect(heavy / light).toBeGreaterThan(2.7)
    expect(heavy / light).toBeLessThan(3.3)
  })

  it('a tenant the provider slowed alone gets its own rate there; the others take the rest of the budget', async () => {
    const pacer = harness({
      plans: { slowed: generous, other: generous },
      providers: { 'gmail.com': 'google' },
      rates: { google: 2_400 },
      // 6 a second for the slowed tenant at google: a tenth of the budget of 40 a second.
      tenantRates: { 'slowed\u0000google': 360 },
    })
    pacer.add('slowed', 'gmail.com', 2_000)
    pacer.add('other', 'gmail.com', 2_000)
    await pacer.tick()
    await pacer.tick()
    const before = {
      slowed: pacer.sentBy({ tenantId: 'slowed' }),
      other: pacer.sentBy({ tenantId: 'other' }),
    }
    for (let tick = 0; tick < 100; tick++) await pacer.tick()
    const slowed = pacer.sentBy({ tenantId: 'slowed' }) - before.slowed
    const other = pacer.sentBy({ tenantId: 'other' }) - before.other
    // 10 s: about 60 for the slowed tenant, the rest of the 400 for the other.
    expect(slowed).toBeGreaterThanOrEqual(55)
    expect(slowed).toBeLessThanOrEqual(67)
    expect(slowed + other).toBeGreaterThanOrEqual(390)
  })

  it('a small tenant’s first message for a busy provider goes out at its first tick', async () => {
    const pacer = harness({
      plans: { big: generous, small: generous },
      providers: { 'gmail.com': 'google' },
      rates: { google: 2_400 },
    })
    pacer.add('big', 'gmail.com', 5_000)
    for (let tick = 0; tick < 20; tick++) await pacer.tick()
    pacer.add('small', 'gmail.com', 1)
    const { released } = await pacer.tick()
    expect(released.map((job) => job.tenantId)).toContain('small')
  })

  it('never releases more than a provider’s budget or the lane’s free slots', async () => {
    const pacer = harness({
      plans: { a: generous, b: generous },
      providers: { 'gmail.com': 'google', 'outlook.com': 'microsoft' },
      // 10 a second at google (burst: 10), 100 a second at microsoft (burst: 100).
      rates: { google: 600, microsoft: 6_000 },
      highWater: 25,
    })
    pacer.add('a', 'gmail.com', 1_000)
    pacer.add('b', 'gmail.com', 1_000)
    pacer.add('a', 'outlook.com', 1_000)
    await pacer.tick()
    for (let tick = 0; tick < 50; tick++) {
      const { outcome } = await pacer.tick({ keepLane: tick % 5 === 0 })
      expect(pacer.lane.length).toBeLessThanOrEqual(25)
      expect(outcome.released).toBeLessThanOrEqual(25)
    }
    // 51 ticks of 100 ms: a burst of 10 plus 10 a second at most.
    expect(pacer.sentBy({ provider: 'google' }) + pacer.lane.length).toBeLessThanOrEqual(10 + 52)
    expect(pacer.sentBy({ provider: 'google' })).toBeGreaterThan(40)
  })

  it('a domain not yet resolved waits, and joins once resolved; a lookup failing for now is retried, the rows never failed', async () => {
    const pacer = harness({
      plans: { a: generous },
      providers: { 'gmail.com': 'google', 'late.example': 'late' },
      rates: { google: 60_000, late: 60_000 },
      stage: { resolveRetryMs: 300 },
    })
    pacer.holdDomains.add('late.example')
    pacer.add('a', 'late.example', 5)
    pacer.add('a', 'gmail.com', 5)
    pacer.add('a', 'dns-down.example', 2)
    await pacer.tick()
    await pacer.tick()
    expect(pacer.sentBy({ provider: 'google' })).toBe(5)
    expect(pacer.sentBy({ provider: 'late' })).toBe(0)
    pacer.held.get('late.example')?.('late')
    await pacer.tick()
    expect(pacer.sentBy({ provider: 'late' })).toBe(5)

    const asked = () => pacer.lookups.filter((domain) => domain === 'dns-down.example').length
    expect(asked()).toBe(1)
    // Asked at 0 ms, then every 300 ms (resolveRetryMs): at 300 and 600 ms, not at every tick.
    for (let tick = 0; tick < 4; tick++) await pacer.tick()
    expect(asked()).toBe(3)
    expect(pacer.rows.filter((row) => row.domain === 'dns-down.example').map((row) => row.status)).toEqual([
      'pending',
      'pending',
    ])
  })

  it('rows taken by someone else between staging and the claim leave the stage; the rest go out', async () => {
    const pacer = harness({
      plans: { a: generous },
      providers: { 'gmail.com': 'google' },
      rates: { google: 60_000 },
    })
    pacer.add('a', 'gmail.com', 10)
    await pacer.tick() // staged, resolving
    // Another claimer takes four of the staged rows.
    for (const row of pacer.rows.slice(0, 4)) row.status = 'queued'
    const { outcome } = await pacer.tick()
    expect(outcome.released).toBe(6)
    expect(pacer.sentBy({})).toBe(6)
    const next = await pacer.tick()
    expect(next.outcome.kind).toBe('idle')
  })
})
