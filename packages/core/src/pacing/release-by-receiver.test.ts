import { describe, expect, it } from 'vitest'
import type { ReleasedBatch, ReleasedMessage } from './ports'
import type { PendingBulkRow, ReceiverBacklogStore, ReceiverPlanner } from './receiver-ports'
import { createReceiverStage, releaseByReceiver } from './release-by-receiver'

/**
 * The tick's own duties with a planner that asks for everything staged: the lane's free slots cap
 * the release, a failed add gives the claimed rows back, and the planner hears what was released.
 * (Fairness itself, with the real planner: packages/delivery/src/engine/fairness/receiver-pacing.test.ts.)
 */
function setup(options: {
  pending: number
  depth?: number
  enqueueFails?: boolean
  /** Each row's recipient domain by its index (default `example.com`), its provider the domain's first label. */
  domainOf?: (index: number) => string
  batchSize?: number
  tenantRatePerMinute?: () => number | undefined
  tenantSharesPerMinute?: (
    provider: string,
    tenants: readonly { tenantId: string; weight: number }[],
  ) => Promise<Map<string, number>>
}) {
  const rows: Array<PendingBulkRow & { status: 'pending' | 'queued' }> = Array.from(
    { length: options.pending },
    (_, index) => ({
      messageId: `m${String(index).padStart(4, '0')}`,
      tenantId: 't',
      domain: options.domainOf?.(index) ?? 'example.com',
      createdAt: String(index).padStart(4, '0'),
      status: 'pending',
    }),
  )
  const commits: Parameters<ReceiverPlanner['commit']>[0][] = []
  const plans: Parameters<ReceiverPlanner['plan']>[0][] = []
  const given: ReleasedMessage[] = []
  const store: ReceiverBacklogStore = {
    findBacklog: async () =>
      rows.some((row) => row.status === 'pending')
        ? [{ tenantId: 't', ratePerSec: 1, burst: 1, weight: 3, backlog: 1 }]
        : [],
    pagePending: async ({ after, limit }) =>
      rows
        .filter((row) => row.status === 'pending' && (!after || row.createdAt > after.createdAt))
        .slice(0, limit),
    claimByIds: async (wanted) =>
      wanted.flatMap(({ messageId }) => {
        const row = rows.find((candidate) => candidate.messageId === messageId)
        if (row?.status !== 'pending') return []
        row.status = 'queued'
        return [{ messageId, tenantId: 't', generation: 0 }]
      }),
    giveBack: async (released) => {
      given.push(...released)
      for (const { messageId } of released) {
        const row = rows.find((candidate) => candidate.messageId === messageId)
        if (row) row.status = 'pending'
      }
      return released.length
    },
  }
  const planner: ReceiverPlanner = {
    plan: (input) => {
      plans.push(input)
      return {
        order: input.backlogs.flatMap((entry) => Array.from({ length: entry.backlog }, () => entry)),
      }
    },
    commit: (input) => commits.push(input),
  }
  const enqueued: ReleasedMessage[] = []
  const batches: ReleasedBatch[] = []
  const deps = {
    store,
    lane: {
      depth: async () => options.depth ?? 0,
      enqueue: async (released: readonly ReleasedMessage[]) => {
        if (options.enqueueFails) throw new Error('redis is down')
        enqueued.push(...released)
      },
      enqueueBatches: async (added: readonly ReleasedBatch[]) => {
        if (options.enqueueFails) throw new Error('redis is down')
        batches.push(...added)
      },
    },
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    providers: { resolve: async (domain: string) => domain.split('.')[0] ?? domain },
    ratePerMinute: () => 600,
    ...(options.tenantRatePerMinute ? { tenantRatePerMinute: options.tenantRatePerMinute } : {}),
    ...(options.tenantSharesPerMinute ? { tenantSharesPerMinute: options.tenantSharesPerMinute } : {}),
    planner,
    highWater: 10,
    clock: { now: () => new Date(0) },
    logger: { warn() {} },
  }
  const stage = createReceiverStage()
  const tick = async () => {
    const outcome = await releaseByReceiver(stage, deps)
    await new Promise((resolve) => setImmediate(resolve))
    return outcome
  }
  return { rows, commits, plans, given, enqueued, batches, tick }
}

describe('releaseByReceiver', () => {
  it('releases no more than the lane’s free slots, oldest first, and tells the planner', async () => {
    const pacer = setup({ pending: 30, depth: 4 })
    // Nothing to release while the domain is looked up: its rows wait, counted as unresolved.
    expect(await pacer.tick()).toMatchObject({ kind: 'full', released: 0, unresolved: 30 })
    const outcome = await pacer.tick()
    expect(outcome.released).toBe(6)
    expect(pacer.enqueued.map((job) => job.messageId)).toEqual(
      pacer.rows.slice(0, 6).map((row) => row.messageId),
    )
    expect(pacer.commits.at(-1)?.pairs).toEqual([
      { tenantId: 't', provider: 'example', planned: 6, released: 6 },
    ])
  })

  it('with a batch size, adds one job per tenant and provider (at most that many each), no single jobs', async () => {
    const pacer = setup({
      pending: 10,
      domainOf: (index) => (index % 2 === 0 ? 'gmail.test' : 'outlook.test'),
      batchSize: 3,
    })
    await pacer.tick()
    expect((await pacer.tick()).released).toBe(10)
    expect(pacer.enqueued).toEqual([])
    const domainOf = new Map(pacer.rows.map((row) => [row.messageId, row.domain]))
    for (const batch of pacer.batches) {
      expect(batch.messages.length).toBeLessThanOrEqual(3)
      expect(new Set(batch.messages.map((message) => domainOf.get(message.messageId))).size).toBe(1)
    }
    expect(pacer.batches.map((batch) => batch.messages.length).sort()).toEqual([2, 2, 3, 3])
  })

  it('a lane that is full releases nothing and reads nothing', async () => {
    const pacer = setup({ pending: 5, depth: 10 })
    expect(await pacer.tick()).toEqual({ kind: 'full', released: 0, backlog: null, unresolved: 0 })
  })

  it('gives the claimed rows back when their jobs cannot be added, and throws', async () => {
    const pacer = setup({ pending: 3, enqueueFails: true })
    await pacer.tick()
    await expect(pacer.tick()).rejects.toThrow(/redis is down/)
    expect(pacer.given).toHaveLength(3)
    expect(pacer.rows.every((row) => row.status === 'pending')).toBe(true)
    expect(pacer.commits.flatMap((commit) => commit.pairs)).toEqual([])
  })

  it('refuses a stage option that is not a number above 0', () => {
    expect(() => createReceiverStage({ stageLimit: 0 })).toThrow(/stageLimit/)
  })

  it('caps a backlogged tenant at its share of a provider others want too, and at the lower of two caps', async () => {
    const asked: { provider: string; tenants: readonly { tenantId: string; weight: number }[] }[] = []
    const shares = new Map([['t', 150]])
    const pacer = setup({
      pending: 5,
      tenantSharesPerMinute: async (provider, tenants) => {
        asked.push({ provider, tenants })
        return shares
      },
    })
    await pacer.tick()
    await pacer.tick()
    expect(asked.at(-1)).toEqual({ provider: 'example', tenants: [{ tenantId: 't', weight: 3 }] })
    expect(pacer.plans.at(-1)?.pairRates).toEqual(new Map([['t\u0000example', 150]]))

    const singled = setup({
      pending: 5,
      tenantRatePerMinute: () => 40,
      tenantSharesPerMinute: async () => shares,
    })
    await singled.tick()
    await singled.tick()
    expect(singled.plans.at(-1)?.pairRates).toEqual(new Map([['t\u0000example', 40]]))
  })
})
