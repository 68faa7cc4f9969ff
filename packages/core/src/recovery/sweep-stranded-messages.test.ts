import { describe, expect, it } from 'vitest'
import type { AcceptedSend, LaneJobState, LaneJobs, StrandedMessage, SweepStore } from './ports'
import { sweepStrandedMessages } from './sweep-stranded-messages'

const input = { queuedForMs: 60_000, batchSize: 100 }

function stranded(id: string, overrides: Partial<StrandedMessage> = {}): StrandedMessage {
  return { id, tenantId: 't1', lane: 'critical', generation: 0, status: 'queued', ...overrides }
}

/**
 * Message rows in memory; `calls` lists the store's and the lanes' calls in order, a transaction's
 * between `begin` and `commit`. `beforeTransaction` alters rows between the first read and the transaction.
 */
function memory(rows: StrandedMessage[], options: { lockTaken?: boolean } = {}) {
  const table = new Map<string, StrandedMessage & { lockToken?: string; sent?: boolean }>(
    rows.map((row) => [row.id, { ...row }]),
  )
  const calls: string[] = []
  const states = new Map<string, LaneJobState>()
  const acceptedSends = new Map<string, AcceptedSend>()
  let pendingChange: (() => void) | undefined
  const store: SweepStore = {
    async findStranded({ limit }) {
      calls.push('findStranded')
      return [...table.values()]
        .filter((row) => !row.sent)
        .slice(0, limit)
        .map(({ lockToken: _, sent: __, ...row }) => row)
    },
    async transaction(work) {
      pendingChange?.()
      calls.push('begin')
      const result = await work({
        tryTakeSweepLock: async () => !options.lockTaken,
        async findStillStranded({ ids }) {
          calls.push(`findStillStranded ${ids.join(',')}`)
          return ids.flatMap((id) => {
            const row = table.get(id)
            if (!row || row.sent) return []
            const { lockToken: _, sent: __, ...message } = row
            return [message]
          })
        },
        async republish(message) {
          const row = table.get(message.id)
          if (!row || row.generation !== message.generation) return false
          calls.push(`republish ${message.id}`)
          table.set(message.id, { ...row, status: 'queued', generation: row.generation + 1 })
          return true
        },
        async recordAcceptedSend(message, accepted) {
          const row = table.get(message.id)
          if (!row || row.generation !== message.generation || row.lockToken !== accepted.lockToken)
            return false
          calls.push(`recordAcceptedSend ${message.id} ${accepted.lockToken}`)
          table.set(message.id, { ...row, sent: true })
          return true
        },
        notifyRelay: async () => {
          calls.push('notifyRelay')
        },
      })
      calls.push('commit')
      return result
    },
  }
  const jobs: LaneJobs = {
    async jobStateOf(message) {
      calls.push(`jobStateOf ${message.id}`)
      return states.get(`${message.id}@${message.generation}`) ?? 'unknown'
    },
    async acceptedSendOf(message) {
      calls.push(`acceptedSendOf ${message.id}`)
      return acceptedSends.get(`${message.id}@${message.generation}`) ?? null
    },
  }
  return {
    store,
    jobs,
    calls,
    row: (id: string) => table.get(id),
    jobIs: (id: string, state: LaneJobState) => states.set(`${id}@0`, state),
    /** The row is `sending` under `lockToken`, and its job (failed) kept that claim as accepted. */
    acceptedUnder: (id: string, lockToken: string, jobLockToken = lockToken) => {
      const row = table.get(id)
      if (row) table.set(id, { ...row, status: 'sending', lockToken })
      states.set(`${id}@0`, 'failed')
      acceptedSends.set(`${id}@0`, { lockToken: jobLockToken, response: '250 2.0.0 OK' })
    },
    beforeTransaction: (change: (rows: Map<string, StrandedMessage>) => void) => {
      pendingChange = () => change(table)
    },
  }
}

describe('sweep stranded messages', () => {
  it('republishes the messages whose job will not run, lanes asked before the transaction', async () => {
    const world = memory([stranded('lost'), stranded('done'), stranded('failed'), stranded('waiting')])
    world.jobIs('done', 'completed')
    world.jobIs('failed', 'failed')
    world.jobIs('waiting', 'delayed')
    const outcome = await sweepStrandedMessages(input, world)
    expect(outcome).toEqual({
      leader: true,
      examined: 4,
      republished: [
        { ...stranded('lost'), jobState: 'unknown' },
        { ...stranded('done'), jobState: 'completed' },
        { ...stranded('failed'), jobState: 'failed' },
      ],
      recorded: [],
    })
    expect(world.row('lost')).toMatchObject({ generation: 1 })
    expect(world.row('waiting')).toMatchObject({ generation: 0 })
    expect(world.calls).toEqual([
      'findStranded',
      'jobStateOf lost',
      'jobStateOf done',
      'jobStateOf failed',
      'jobStateOf waiting',
      'begin',
      'findStillStranded lost,done,failed',
      'republish lost',
      'republish done',
      'republish failed',
      'notifyRelay',
      'commit',
    ])
  })

  it('opens no transaction when every job is live, or nothing is stranded', async () => {
    const live = memory([stranded('a'), stranded('b'), stranded('c'), stranded('d'), stranded('e')])
    const states = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const
    for (const [index, id] of ['a', 'b', 'c', 'd', 'e'].entries()) live.jobIs(id, states[index] ?? 'waiting')
    expect(await sweepStrandedMessages(input, live)).toEqual({
      leader: true,
      examined: 5,
      republished: [],
      recorded: [],
    })
    expect(live.calls).not.toContain('begin')

    const none = memory([])
    expect(await sweepStrandedMessages(input, none)).toEqual({
      leader: true,
      examined: 0,
      republished: [],
      recorded: [],
    })
    expect(none.calls).toEqual(['findStranded'])
  })

  it('republishes nothing, and opens no transaction, when a lane cannot answer', async () => {
    const world = memory([stranded('a'), stranded('b', { lane: 'bulk' })])
    const jobs: LaneJobs = {
      jobStateOf: async (message) => {
        if (message.lane === 'bulk') throw new Error('Redis did not answer')
        return 'unknown'
      },
      acceptedSendOf: async () => null,
    }
    await expect(sweepStrandedMessages(input, { store: world.store, jobs })).rejects.toThrow(/did not answer/)
    expect(world.calls).toEqual(['findStranded'])
    expect(world.row('a')).toMatchObject({ generation: 0 })
  })

  it('leaves the decision to the sweep that holds the lock', async () => {
    const world = memory([stranded('a')], { lockTaken: true })
    expect(await sweepStrandedMessages(input, world)).toEqual({
      leader: false,
      examined: 0,
      republished: [],
      recorded: [],
    })
    expect(world.row('a')).toMatchObject({ generation: 0 })
    expect(world.calls).not.toContain('notifyRelay')
  })

  it('leaves a message that moved on between the read and the transaction', async () => {
    const world = memory([stranded('claimed'), stranded('replayed'), stranded('sent'), stranded('lost')])
    world.beforeTransaction((rows) => {
      rows.set('claimed', stranded('claimed', { status: 'sending' }))
      rows.set('replayed', stranded('replayed', { generation: 1 }))
      rows.delete('sent')
    })
    const outcome = await sweepStrandedMessages(input, world)
    expect(outcome.republished.map((message) => message.id)).toEqual(['lost'])
    expect(world.row('claimed')).toMatchObject({ status: 'sending', generation: 0 })
    expect(world.row('replayed')).toMatchObject({ generation: 1 })
  })

  it('counts only what the store republished, and wakes the relay only then', async () => {
    const world = memory([stranded('a')])
    const store: SweepStore = {
      ...world.store,
      transaction: (work) => world.store.transaction((tx) => work({ ...tx, republish: async () => false })),
    }
    expect(await sweepStrandedMessages(input, { store, jobs: world.jobs })).toEqual({
      leader: true,
      examined: 1,
      republished: [],
      recorded: [],
    })
    expect(world.calls).not.toContain('notifyRelay')
  })

  it('records the accepted send a failed job held instead of republishing it, asked before the transaction', async () => {
    const world = memory([
      stranded('accepted', { status: 'sending' }),
      stranded('failed-plain', { status: 'sending' }),
      stranded('queued-failed'),
    ])
    world.acceptedUnder('accepted', 'token-a')
    world.jobIs('failed-plain', 'failed')
    world.jobIs('queued-failed', 'failed')
    const outcome = await sweepStrandedMessages(input, world)
    expect(outcome.recorded).toEqual([
      {
        ...stranded('accepted', { status: 'sending' }),
        accepted: { lockToken: 'token-a', response: '250 2.0.0 OK' },
      },
    ])
    expect(outcome.republished.map((message) => message.id)).toEqual(['failed-plain', 'queued-failed'])
    expect(world.row('accepted')).toMatchObject({ sent: true, generation: 0 })
    // Only `sending` messages with a failed job are asked; every question to Redis precedes `begin`.
    expect(world.calls.filter((call) => call.startsWith('acceptedSendOf'))).toEqual([
      'acceptedSendOf accepted',
      'acceptedSendOf failed-plain',
    ])
    expect(world.calls.indexOf('acceptedSendOf failed-plain')).toBeLessThan(world.calls.indexOf('begin'))
    expect(world.calls).toContain('recordAcceptedSend accepted token-a')
    expect(world.calls).not.toContain('republish accepted')
  })

  it('republishes, as before, a message whose accepted claim no longer matches its row', async () => {
    const world = memory([stranded('moved', { status: 'sending' })])
    world.acceptedUnder('moved', 'token-now', 'token-then')
    const outcome = await sweepStrandedMessages(input, world)
    expect(outcome.recorded).toEqual([])
    expect(outcome.republished.map((message) => message.id)).toEqual(['moved'])
  })
})
