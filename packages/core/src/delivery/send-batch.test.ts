import { describe, expect, it } from 'vitest'
import type { BatchDeliveryStore, ClaimedMessage, DeliveryState, HandOff, OutgoingMail } from './ports'
import { BATCH_LOCK_SHARE, type SendBatchDeps, sendBatch } from './send-batch'
import { acceptingStore, claimedMessage, platformSendDeps } from './testing/send-fixtures'

const tenantId = 't1'
const uuid = (n: number) => `0193a4b2-7c1d-7e8f-9a0b-00000000000${n}`
const [m1, m2, m3, m4] = [1, 2, 3, 4].map(uuid) as [string, string, string, string]
const ids = [m1, m2, m3, m4]
const to = (id: string) => `${id}@example.com`

function claimed(id: string): ClaimedMessage {
  return claimedMessage({ id, tenantId })
}

/**
 * A batch store in memory: `claimable` ids are claimed (in one call), the others answer `states`;
 * every write after the claim is noted.
 */
function memoryStore(claimable: readonly string[], states: Record<string, DeliveryState> = {}) {
  const calls = { claimBatch: 0, readStates: 0, marked: [] as string[], unclaimed: [] as string[] }
  const store: BatchDeliveryStore = {
    ...acceptingStore(),
    async claimBatch(input) {
      calls.claimBatch += 1
      return input.messageIds.filter((id) => claimable.includes(id)).map(claimed)
    },
    async readStates(input) {
      calls.readStates += 1
      return new Map(input.messageIds.flatMap((id) => (states[id] ? [[id, states[id]]] : [])))
    },
    async claim() {
      throw new Error('a batch claims in one statement')
    },
    async readState() {
      throw new Error('a batch reads its states in one read')
    },
    async markSent(claim) {
      calls.marked.push(claim.messageId)
      return true
    },
    async unclaim(claim) {
      calls.unclaimed.push(claim.messageId)
      return true
    },
  }
  return { store, calls }
}

function deps(
  store: BatchDeliveryStore,
  options: { granted?: number; send?: (mail: OutgoingMail) => Promise<HandOff>; nowMs?: () => number } = {},
) {
  const sent: string[] = []
  const connections = { held: 0, taken: 0 }
  const result: SendBatchDeps = {
    store,
    mailer: {
      reserve: async () => {
        throw new Error('a batch holds one connection')
      },
      async hold() {
        connections.held += 1
        connections.taken += 1
        return {
          async send(mail) {
            sent.push(mail.to)
            return options.send ? options.send(mail) : { response: '250 ok' }
          },
          release: () => {
            connections.held -= 1
          },
        }
      },
    },
    gate: {
      admit: async () => {
        throw new Error('a batch takes its tokens at once')
      },
      admitUpTo: async ({ count }) => ({
        granted: Math.min(count, options.granted ?? count),
        delayMs: (options.granted ?? count) < count ? 250 : 0,
      }),
    },
    ...platformSendDeps(),
    clock: { now: () => new Date(options.nowMs?.() ?? 10_000) },
  }
  return { deps: result, sent, connections }
}

describe('sendBatch', () => {
  it('claims once, sends in order over one held connection with one take, and marks every sent one', async () => {
    const { store, calls } = memoryStore(ids)
    const { deps: batchDeps, sent, connections } = deps(store)
    const outcome = await sendBatch({ tenantId, messageIds: ids }, batchDeps)
    expect(sent).toEqual(ids.map(to))
    expect(outcome.items.map((item) => [item.messageId, item.kind])).toEqual(ids.map((id) => [id, 'sent']))
    expect(outcome.rest).toBeNull()
    expect(calls).toMatchObject({ claimBatch: 1, readStates: 0, marked: ids })
    expect(connections).toEqual({ held: 0, taken: 1 })
  })

  it('skips the done ones and keeps the ones under a live claim for the lock’s expiry, in one read', async () => {
    const { store, calls } = memoryStore([m1, m4], {
      [m2]: { status: 'sent', lockRemainingMs: null },
      [m3]: { status: 'sending', lockRemainingMs: 1_500 },
    })
    const { deps: batchDeps, sent } = deps(store)
    const outcome = await sendBatch({ tenantId, messageIds: ids }, batchDeps)
    expect(sent).toEqual([to(m1), to(m4)])
    expect(outcome.items).toContainEqual({ messageId: m2, kind: 'skipped', reason: 'already-sent' })
    expect(outcome.rest).toEqual({ messageIds: [m3], delayMs: 1_500 })
    expect(calls.readStates).toBe(1)
  })

  it('sends what the bucket granted and gives the rest back for the job to come back with', async () => {
    const { store, calls } = memoryStore(ids)
    const { deps: batchDeps, sent } = deps(store, { granted: 1 })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, batchDeps)
    expect(sent).toEqual([to(m1)])
    expect(calls.unclaimed).toEqual([m2, m3, m4])
    expect(outcome.rest).toEqual({ messageIds: [m2, m3, m4], delayMs: 250 })
  })

  it('a batch of several tenants’ first turns: one claim under all of them, each tenant’s own take, a refused tenant’s messages back to wait', async () => {
    const tenantOf: Record<string, string> = { [m1]: 't1', [m2]: 't2', [m3]: 't3', [m4]: 't2' }
    const { store, calls } = memoryStore(ids)
    const claimedUnder: string[][] = []
    store.claimBatch = async (input) => {
      calls.claimBatch += 1
      claimedUnder.push([...input.tenantIds])
      return input.messageIds.map((id) => claimedMessage({ id, tenantId: tenantOf[id] as string }))
    }
    const { deps: batchDeps, sent } = deps(store)
    const takes: Array<[string, number]> = []
    batchDeps.gate = {
      admit: async () => {
        throw new Error('a batch takes its tokens at once')
      },
      admitUpTo: async ({ tenantId: asked, count }) => {
        takes.push([asked, count])
        return asked === 't2' ? { granted: 0, delayMs: 400 } : { granted: count, delayMs: 0 }
      },
    }
    const outcome = await sendBatch(
      { tenantId: 't1', tenantIds: ['t1', 't2', 't3'], messageIds: ids },
      batchDeps,
    )
    expect(claimedUnder).toEqual([['t1', 't2', 't3']])
    expect(takes.sort()).toEqual([
      ['t1', 1],
      ['t2', 2],
      ['t3', 1],
    ])
    expect(sent).toEqual([to(m1), to(m3)])
    expect(calls.marked.sort()).toEqual([m1, m3].sort())
    expect(calls.unclaimed.sort()).toEqual([m2, m4].sort())
    expect(outcome.rest).toEqual({ messageIds: [m2, m4], delayMs: 400 })
  })

  it('reads the campaigns of a batch of first turns at once, before rendering any of its messages', async () => {
    const campaignOf: Record<string, [string, string]> = {
      [m1]: ['t1', 'c1'],
      [m2]: ['t2', 'c2'],
      [m3]: ['t2', 'c2'],
      [m4]: ['t3', 'c3'],
    }
    const { store } = memoryStore(ids)
    store.claimBatch = async (input) =>
      input.messageIds.map((id) => {
        const [owner, campaignId] = campaignOf[id] as [string, string]
        return claimedMessage({
          id,
          tenantId: owner,
          campaignId,
          contact: { id: `contact-${id}`, name: null, attributes: {} },
        })
      })
    const { deps: batchDeps, sent } = deps(store)
    const steps: string[] = []
    batchDeps.campaigns = {
      async prefetch(wanted) {
        steps.push(`prefetch ${wanted.map((item) => `${item.tenantId}/${item.campaignId}`).join(' ')}`)
      },
      async render(input) {
        steps.push(`render ${input.campaignId}`)
        return { subject: 'News', text: 'Hello', html: '<p>Hello</p>', headers: {} }
      },
    }
    await sendBatch({ tenantId: 't1', tenantIds: ['t1', 't2', 't3'], messageIds: ids }, batchDeps)
    expect(steps).toEqual(['prefetch t1/c1 t2/c2 t3/c3', 'render c1', 'render c2', 'render c2', 'render c3'])
    expect(sent).toEqual(ids.map(to))
  })

  it('refuses to send a batch of several tenants to receivers’ MX hosts (a provider’s budget is per tenant)', async () => {
    const { store, calls } = memoryStore(ids)
    const { deps: batchDeps } = deps(store)
    const withReceivers = { ...batchDeps, receivers: {} as NonNullable<SendBatchDeps['receivers']> }
    await expect(
      sendBatch({ tenantId: 't1', tenantIds: ['t1', 't2'], messageIds: ids }, withReceivers),
    ).rejects.toThrow(/several tenants/)
    expect(calls.claimBatch).toBe(0)
  })

  it('starts no send once the batch has used its share of the claim, and gives the rest back', async () => {
    let nowMs = 10_000
    const { store, calls } = memoryStore(ids)
    const { deps: batchDeps, sent } = deps(store, {
      nowMs: () => nowMs,
      send: async () => {
        // Each send takes half the batch's share of the 30 s claim.
        nowMs += (30_000 * BATCH_LOCK_SHARE) / 2 + 1
        return { response: '250 ok' }
      },
    })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, batchDeps)
    expect(sent).toEqual([to(m1), to(m2)])
    expect(calls.unclaimed).toEqual([m3, m4])
    expect(outcome.rest).toEqual({ messageIds: [m3, m4], delayMs: 0 })
    // The sent ones were marked, in one go at the end or at the 1 s flush.
    expect(calls.marked.sort()).toEqual([m1, m2])
  })
})
