import type { ReceiverAdmission, ReceiverGate, ReceiverVerdict } from '@fairlane/core/delivery'
import type { ReceiverCountInput } from '@fairlane/fairness'
import { describe, expect, it } from 'vitest'
import { withReceiverCounts } from './receiver-counting'

/** A gate that answers what the test sets: the counting wrapper is what is under test. */
function scriptedGate(answers: { admission: ReceiverAdmission; verdict: ReceiverVerdict }): ReceiverGate {
  return { admit: async () => answers.admission, learn: async () => answers.verdict }
}

const ask = { tenantId: 'tenant-a', lane: 'bulk' as const, toAddress: 'someone@gmail.com' }
const route = { provider: 'google', egressAddress: '10.0.0.1' }

function counting(answers: { admission: ReceiverAdmission; verdict: ReceiverVerdict }) {
  const recorded: ReceiverCountInput[] = []
  const errors: unknown[] = []
  const gate = withReceiverCounts(scriptedGate(answers), {
    counters: {
      record: async (input) => {
        if (input.provider === 'broken') throw new Error('Redis is away')
        recorded.push(input)
      },
    },
    onError: (error) => errors.push(error),
  })
  return { gate, recorded, errors }
}

describe('withReceiverCounts', () => {
  it('counts an attempt and its acceptance, with the tenant, and passes the answers through', async () => {
    const { gate, recorded } = counting({ admission: { ok: true, route }, verdict: { kind: 'as-is' } })
    expect(await gate.admit(ask)).toEqual({ ok: true, route })
    expect(await gate.learn({ ...ask, route, outcome: { kind: 'accepted' } })).toEqual({ kind: 'as-is' })
    expect(recorded.map((input) => input.kind)).toEqual(['attempt', 'accepted'])
    expect(recorded[0]).toEqual({
      provider: 'google',
      egress: '10.0.0.1',
      tenantId: 'tenant-a',
      kind: 'attempt',
    })
  })

  it('counts a throttle as a throttle reply and a deferral, and a refused admission as a deferral', async () => {
    const verdict = {
      kind: 'defer' as const,
      delayMs: 20_000,
      provider: 'google',
      reply: '421 4.7.28 slow down',
    }
    const admission = {
      ok: false as const,
      delayMs: 5_000,
      provider: 'google',
      reason: 'paused',
      egressAddress: '10.0.0.1',
    }
    const { gate, recorded } = counting({ admission, verdict })
    expect(await gate.learn({ ...ask, route, outcome: { kind: 'failed', error: new Error('421') } })).toBe(
      verdict,
    )
    expect(await gate.admit(ask)).toBe(admission)
    expect(recorded.map((input) => input.kind)).toEqual(['attempt', 'throttled', 'deferred', 'deferred'])
    expect(recorded[3]?.egress).toBe('10.0.0.1')
  })

  it('never fails a send for a count Redis did not take', async () => {
    const broken = { provider: 'broken' }
    const { gate, errors } = counting({ admission: { ok: true, route: broken }, verdict: { kind: 'as-is' } })
    await expect(gate.learn({ ...ask, route: broken, outcome: { kind: 'accepted' } })).resolves.toEqual({
      kind: 'as-is',
    })
    // The counts are not awaited by the send: their failures arrive after it.
    await expect.poll(() => errors.length).toBe(2)
  })
})
