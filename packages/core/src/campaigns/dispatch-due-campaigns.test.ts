import { describe, expect, it } from 'vitest'
import {
  createCompletionCursor,
  DISPATCH_TUNING,
  type DispatchDueCampaignsDeps,
  dispatchDueCampaigns,
} from './dispatch-due-campaigns'
import type { CampaignDueSoon, CompletionSlice, DispatchStore, DispatchTarget } from './ports'

interface Audience {
  campaign: DispatchTarget
  /** One entry per contact: true when it is unsubscribed or suppressed. */
  contacts: boolean[]
  cursor: number
  /** Another dispatcher holds it: every batch is skipped. */
  held?: boolean
}

/** Campaigns in memory, dispatched page by page from a cursor as the SQL does; records every batch. */
function memoryStore(input: {
  due: Array<{ id: string; contacts: boolean[]; held?: boolean }>
  finished?: DispatchTarget[]
  /** The completion slices answered in turn (after them, `finished` with no next). */
  slices?: CompletionSlice[]
  soon?: CampaignDueSoon[]
  /** Milliseconds each batch takes on the fake clock. */
  batchMs?: number
  clock?: { ms: number }
}) {
  const audiences: Audience[] = input.due.map(({ id, contacts, held }) => ({
    campaign: { id, tenantId: `t-${id}` },
    contacts,
    cursor: 0,
    held,
  }))
  const batches: string[] = []
  const completionAsks: Array<{ after: string | null; limit: number }> = []
  const slices = [...(input.slices ?? [])]
  const store: DispatchStore = {
    completeFinished: async (ask) => {
      completionAsks.push(ask)
      return slices.shift() ?? { completed: input.finished ?? [], next: null, busy: false }
    },
    // As the SQL: a campaign whose last batch is written is `sending`, no longer dispatchable.
    findDispatchable: async ({ limit }) =>
      audiences
        .filter((audience) => audience.cursor < Math.max(1, audience.contacts.length))
        .slice(0, limit)
        .map((audience) => audience.campaign),
    async dispatchBatch({ campaignId, batchSize }) {
      const audience = audiences.find((candidate) => candidate.campaign.id === campaignId)
      if (!audience || audience.held || audience.cursor >= Math.max(1, audience.contacts.length)) {
        return { kind: 'skipped' }
      }
      batches.push(campaignId)
      if (input.clock) input.clock.ms += input.batchMs ?? 0
      const page = audience.contacts.slice(audience.cursor, audience.cursor + batchSize)
      audience.cursor += Math.max(1, page.length)
      const done = audience.cursor >= audience.contacts.length
      return {
        kind: 'batch',
        inserted: page.length,
        excluded: page.filter(Boolean).length,
        done,
        endedEmpty: done && audience.contacts.length === 0,
      }
    },
    findDueSoon: async ({ withinMs }) =>
      (input.soon ?? []).filter((campaign) => campaign.dueInMs <= withinMs),
  }
  return { store, batches, completionAsks }
}

function deps(store: DispatchStore, overrides: Partial<DispatchDueCampaignsDeps> = {}) {
  const logged: string[] = []
  const woken: Array<[string, number]> = []
  let pending = 0
  const built: DispatchDueCampaignsDeps = {
    store,
    onPending: () => {
      pending += 1
    },
    wakeAt: async (campaign, dueInMs) => {
      woken.push([campaign.id, dueInMs])
    },
    logger: { info: (fields, message) => logged.push(`${fields.campaignId}: ${message}`) },
    tuning: { ...DISPATCH_TUNING, batchSize: 2 },
    clock: { nowMs: () => 0 },
    ...overrides,
  }
  return { deps: built, logged, woken, pendingCalls: () => pending }
}

const contacts = (count: number, excludedAt: number[] = []) =>
  Array.from({ length: count }, (_, index) => excludedAt.includes(index))

describe('dispatch due campaigns', () => {
  it('dispatches campaigns due together in turns, one batch each, until each is done', async () => {
    const { store, batches } = memoryStore({
      due: [
        { id: 'a', contacts: contacts(5, [1]) },
        { id: 'b', contacts: contacts(2) },
      ],
    })
    const run = deps(store)
    expect(await dispatchDueCampaigns(run.deps)).toEqual({ completed: 0, dispatched: 6, excluded: 1 })
    expect(batches).toEqual(['a', 'b', 'a', 'a'])
    expect(run.pendingCalls()).toBe(4)
    expect(run.logged).toEqual(['b: campaign dispatched; sending', 'a: campaign dispatched; sending'])
  })

  it('stops at the end of its slice, leaving the rest to the next pass from the cursor', async () => {
    const clock = { ms: 0 }
    const { store, batches } = memoryStore({
      due: [
        { id: 'a', contacts: contacts(10) },
        { id: 'b', contacts: contacts(10) },
      ],
      clock,
      batchMs: 700,
    })
    const run = deps(store, {
      clock: { nowMs: () => clock.ms },
      tuning: { ...DISPATCH_TUNING, batchSize: 2, sliceMs: 2_000 },
    })
    expect(await dispatchDueCampaigns(run.deps)).toMatchObject({ dispatched: 6 })
    expect(batches).toEqual(['a', 'b', 'a'])
    expect(run.logged).toEqual([])

    expect(await dispatchDueCampaigns(run.deps)).toMatchObject({ dispatched: 6 })
    expect(batches).toEqual(['a', 'b', 'a', 'a', 'b', 'a'])
  })

  it('runs at most campaignsPerPass campaigns side by side', async () => {
    const { store, batches } = memoryStore({
      due: [
        { id: 'a', contacts: contacts(4) },
        { id: 'b', contacts: contacts(4) },
        { id: 'c', contacts: contacts(4) },
      ],
    })
    await dispatchDueCampaigns(
      deps(store, { tuning: { ...DISPATCH_TUNING, batchSize: 2, campaignsPerPass: 2 } }).deps,
    )
    expect(batches).toEqual(['a', 'b', 'a', 'b', 'c', 'c'])
  })

  it('lets the next due campaigns join as others finish, while the slice lasts', async () => {
    const clock = { ms: 0 }
    const { store, batches } = memoryStore({
      due: Array.from({ length: 25 }, (_, index) => ({ id: `s${index}`, contacts: contacts(1) })),
      clock,
      batchMs: 100,
    })
    const run = deps(store, {
      clock: { nowMs: () => clock.ms },
      tuning: { ...DISPATCH_TUNING, campaignsPerPass: 10, sliceMs: 2_000 },
    })
    // Twenty one-batch campaigns fit the 2 s slice at 100 ms a batch: not only the first ten.
    expect(await dispatchDueCampaigns(run.deps)).toMatchObject({ dispatched: 20 })
    expect(batches).toEqual(Array.from({ length: 20 }, (_, index) => `s${index}`))
  })

  it('reaches past campaigns another dispatcher holds when it looks for more', async () => {
    const { store, batches } = memoryStore({
      due: [
        { id: 'held', contacts: contacts(1), held: true },
        { id: 'a', contacts: contacts(1) },
        { id: 'b', contacts: contacts(1) },
      ],
    })
    await dispatchDueCampaigns(deps(store, { tuning: { ...DISPATCH_TUNING, campaignsPerPass: 1 } }).deps)
    expect(batches).toEqual(['a', 'b'])
  })

  it('moves on from a campaign another dispatcher holds, and wakes no pacer for suppressed-only batches', async () => {
    const { store, batches } = memoryStore({
      due: [
        { id: 'held', contacts: contacts(3), held: true },
        { id: 'left-out', contacts: contacts(2, [0, 1]) },
      ],
    })
    const run = deps(store)
    expect(await dispatchDueCampaigns(run.deps)).toEqual({ completed: 0, dispatched: 0, excluded: 2 })
    expect(batches).toEqual(['left-out'])
    expect(run.pendingCalls()).toBe(0)
  })

  it('says so when a campaign’s audience was empty at send time', async () => {
    const { store } = memoryStore({ due: [{ id: 'empty', contacts: [] }] })
    const run = deps(store)
    expect(await dispatchDueCampaigns(run.deps)).toEqual({ completed: 0, dispatched: 0, excluded: 0 })
    expect(run.logged).toEqual([
      'empty: campaign ended: its audience was empty at send time; nothing to send',
    ])
    expect(run.pendingCalls()).toBe(0)
  })

  it('logs the campaigns it completed and wakes the ones due within the lookahead at their time', async () => {
    const { store } = memoryStore({
      due: [],
      finished: [{ id: 'done', tenantId: 't' }],
      soon: [
        { id: 'soon', tenantId: 't', dueInMs: 400, sendAtMs: 1_400 },
        { id: 'later', tenantId: 't', dueInMs: 60_000, sendAtMs: 61_000 },
      ],
    })
    const run = deps(store)
    expect(await dispatchDueCampaigns(run.deps)).toEqual({ completed: 1, dispatched: 0, excluded: 0 })
    expect(run.logged).toEqual(['done: campaign sent'])
    expect(run.woken).toEqual([['soon', 400]])
  })

  it('checks the campaigns sending for completion a slice per pass, going on where the last pass stopped', async () => {
    const { store, completionAsks } = memoryStore({
      due: [],
      slices: [
        { completed: [], next: 'c2', busy: false },
        // Another pass held the lock: nothing checked, the same slice again.
        { completed: [], next: 'c2', busy: true },
        { completed: [{ id: 'c3', tenantId: 't' }], next: null, busy: false },
      ],
    })
    const completion = createCompletionCursor()
    const run = deps(store, { completion, tuning: { ...DISPATCH_TUNING, completionSlice: 2 } })
    for (let pass = 0; pass < 4; pass++) await dispatchDueCampaigns(run.deps)
    expect(completionAsks).toEqual([
      { after: null, limit: 2 },
      { after: 'c2', limit: 2 },
      { after: 'c2', limit: 2 },
      // The last slice was short: round again from the first.
      { after: null, limit: 2 },
    ])
    expect(run.logged).toEqual(['c3: campaign sent'])
  })

  it('keeps the place another pass of this process moved to when its own check finds the lock held', async () => {
    const { store, completionAsks } = memoryStore({ due: [] })
    // The first pass holds the lock and moves on to c2; the second, started beside it, finds the lock
    // held and answers after the first.
    let releaseBusy: () => void = () => {}
    const busyAnswered = new Promise<void>((resolve) => {
      releaseBusy = resolve
    })
    const answers: Array<() => Promise<CompletionSlice>> = [
      async () => ({ completed: [], next: 'c2', busy: false }),
      async () => {
        await busyAnswered
        return { completed: [], next: null, busy: true }
      },
    ]
    const complete = store.completeFinished
    store.completeFinished = async (ask) => {
      const answer = answers.shift()
      if (!answer) return complete(ask)
      completionAsks.push(ask)
      return answer()
    }
    const completion = createCompletionCursor()
    const run = deps(store, { completion, tuning: { ...DISPATCH_TUNING, completionSlice: 2 } })
    const locked = dispatchDueCampaigns(run.deps)
    const busy = dispatchDueCampaigns(run.deps)
    await locked
    releaseBusy()
    await busy
    await dispatchDueCampaigns(run.deps)
    expect(completionAsks).toEqual([
      { after: null, limit: 2 },
      { after: null, limit: 2 },
      { after: 'c2', limit: 2 },
    ])
  })

  it('fails the pass when a wake-up cannot be asked for', async () => {
    const { store } = memoryStore({
      due: [],
      soon: [{ id: 'soon', tenantId: 't', dueInMs: 400, sendAtMs: 1_400 }],
    })
    const run = deps(store, {
      wakeAt: async () => {
        throw new Error('Redis did not answer')
      },
    })
    await expect(dispatchDueCampaigns(run.deps)).rejects.toThrow('Redis did not answer')
  })
})
