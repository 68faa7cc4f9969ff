import { describe, expect, it } from 'vitest'
import type {
  BatchDeliveryStore,
  ClaimedMessage,
  OutgoingMail,
  ReceiverAdmission,
  ReceiverGate,
  ReceiverRoute,
  ReceiverVerdict,
} from './ports'
import { type SendBatchDeps, sendBatch } from './send-batch'
import { acceptingStore, claimedMessage, platformSendDeps } from './testing/send-fixtures'

/** `sendBatch` in MX mode: the provider's budget once per batch, a throttle stops the batch. */
const tenantId = 't1'
const ids = [1, 2, 3, 4, 5].map((n) => `0193a4b2-7c1d-7e8f-9a0b-00000000000${n}`)
const to = (id: string) => `${id}@gmail.test`
const route: ReceiverRoute = { provider: 'google', egressAddress: '127.0.0.2' }

const claimed = (id: string): ClaimedMessage => claimedMessage({ id, tenantId, toAddress: to(id) })

function setup(options: {
  /** How many the provider's budget grants the batch (default all). */
  granted?: number
  /** The reply to the send to this recipient, as an error; undefined: accepted. */
  failFor?: (to: string) => Error | undefined
  /** What the gate makes of a failed send. */
  verdictFor?: (error: unknown) => ReceiverVerdict
  /** `stillOpen`'s answer before the n-th send (0-based). */
  closedBefore?: number
}) {
  const calls = {
    claimBatch: 0,
    admitUpTo: [] as number[],
    marked: [] as string[],
    unclaimed: [] as Array<{ id: string; provider?: string | undefined; reply?: string | undefined }>,
    failed: [] as string[],
    learnt: [] as string[],
    sent: [] as string[],
    holds: [] as Array<ReceiverRoute | undefined>,
  }
  const store: BatchDeliveryStore = {
    async claimBatch(input) {
      calls.claimBatch += 1
      return input.messageIds.map(claimed)
    },
    ...acceptingStore(),
    readStates: async () => new Map(),
    claim: async () => {
      throw new Error('a batch claims in one statement')
    },
    async markSent(claim) {
      calls.marked.push(claim.messageId)
      return true
    },
    async unclaim(claim) {
      calls.unclaimed.push({ id: claim.messageId, provider: claim.provider, reply: claim.reply })
      return true
    },
    async markFailed(claim) {
      calls.failed.push(claim.messageId)
      return true
    },
  }
  let sends = 0
  const receivers: ReceiverGate = {
    admit: async () => {
      throw new Error('a batch asks its provider once')
    },
    async admitUpTo(_ask, count) {
      calls.admitUpTo.push(count)
      const granted = Math.min(count, options.granted ?? count)
      if (granted === 0)
        return { ok: false, delayMs: 5_000, provider: 'google', reason: 'google is at its rate' }
      return { ok: true, route, granted, delayMs: granted < count ? 2_000 : 0 }
    },
    stillOpen(input): ReceiverAdmission {
      if (options.closedBefore !== undefined && sends >= options.closedBefore)
        return { ok: false, delayMs: 7_000, provider: 'google', reason: 'google paused after: 421' }
      return { ok: true, route: input.route }
    },
    async learn(input) {
      calls.learnt.push(input.outcome.kind)
      if (input.outcome.kind === 'accepted') return { kind: 'as-is' }
      return options.verdictFor?.(input.outcome.error) ?? { kind: 'as-is' }
    },
  }
  const deps: SendBatchDeps = {
    store,
    mailer: {
      reserve: async () => {
        throw new Error('a batch holds one connection')
      },
      async hold(held) {
        calls.holds.push(held)
        return {
          async send(mail: OutgoingMail) {
            sends += 1
            calls.sent.push(mail.to)
            const error = options.failFor?.(mail.to)
            if (error) throw error
            return { response: '250 ok' }
          },
          release: () => {},
        }
      },
    },
    gate: {
      admit: async () => {
        throw new Error('a batch takes its tokens at once')
      },
      admitUpTo: async ({ count }) => ({ granted: count, delayMs: 0 }),
    },
    receivers,
    ...platformSendDeps(),
  }
  return { deps, calls }
}

const throttle = Object.assign(new Error('421 4.7.28 slow down'), { kind: 'transient' as const })
const refusal = Object.assign(new Error('550 5.1.1 no such user'), {
  kind: 'permanent' as const,
  suppressRecipient: false,
})

describe('sendBatch in MX mode', () => {
  it('asks the provider once for the whole batch and sends on a connection held with its route', async () => {
    const { deps, calls } = setup({})
    const outcome = await sendBatch({ tenantId, messageIds: ids }, deps)
    expect(calls.admitUpTo).toEqual([5])
    expect(calls.holds).toEqual([route])
    expect(calls.sent).toEqual(ids.map(to))
    expect(calls.marked).toEqual(ids)
    expect(calls.learnt).toEqual(ids.map(() => 'accepted'))
    expect(outcome.rest).toBeNull()
  })

  it('defers what the provider did not grant, naming it, no attempt spent', async () => {
    const { deps, calls } = setup({ granted: 2 })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, deps)
    expect(calls.sent).toEqual(ids.slice(0, 2).map(to))
    expect(calls.unclaimed.map((entry) => entry.id)).toEqual(ids.slice(2))
    expect(calls.unclaimed.every((entry) => entry.provider === 'google')).toBe(true)
    expect(outcome.rest).toEqual({ messageIds: ids.slice(2), delayMs: 2_000 })
  })

  it('a provider that grants nothing: no connection, every message deferred to its pace', async () => {
    const { deps, calls } = setup({ granted: 0 })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, deps)
    expect(calls.holds).toEqual([])
    expect(outcome.rest).toEqual({ messageIds: ids, delayMs: 5_000 })
  })

  it('a throttle reply mid-batch stops it: that message and the rest wait for the provider, none sent after', async () => {
    const third = to(ids[2] as string)
    const { deps, calls } = setup({
      failFor: (address) => (address === third ? throttle : undefined),
      verdictFor: () => ({ kind: 'defer', delayMs: 61_000, provider: 'google', reply: throttle.message }),
    })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, deps)
    expect(calls.sent).toEqual(ids.slice(0, 3).map(to))
    expect(calls.marked).toEqual(ids.slice(0, 2))
    expect(calls.unclaimed).toEqual(
      ids.slice(2).map((id) => ({ id, provider: 'google', reply: throttle.message })),
    )
    expect(calls.failed).toEqual([])
    expect(outcome.rest).toEqual({ messageIds: ids.slice(2), delayMs: 61_000 })
  })

  it('a provider paused mid-batch (stillOpen) is sent nothing more', async () => {
    const { deps, calls } = setup({ closedBefore: 1 })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, deps)
    expect(calls.sent).toEqual([to(ids[0] as string)])
    expect(outcome.rest).toEqual({ messageIds: ids.slice(1), delayMs: 7_000 })
  })

  it('a message refused for good fails alone; the rest of the batch is sent', async () => {
    const second = to(ids[1] as string)
    const { deps, calls } = setup({ failFor: (address) => (address === second ? refusal : undefined) })
    const outcome = await sendBatch({ tenantId, messageIds: ids }, deps)
    expect(calls.sent).toEqual(ids.map(to))
    expect(calls.failed).toEqual([ids[1]])
    expect(calls.marked).toEqual(ids.filter((_, index) => index !== 1))
    expect(outcome.items.find((item) => item.messageId === ids[1])?.kind).toBe('failed')
    expect(outcome.rest).toBeNull()
  })
})
