import type { ReceiverGate } from '@fairlane/core/delivery'
import { describe, expect, it } from 'vitest'
import { createDeliverySignals, type ProviderStateChange } from '../signals'
import { withProviderSignals } from './provider-signals'

const ask = { tenantId: 't1', lane: 'bulk' as const, toAddress: 'a@gmail.com' }
const route = { provider: 'google', egressAddress: '127.0.0.1' }

function gateAnswering(verdict: Awaited<ReturnType<ReceiverGate['learn']>>): ReceiverGate {
  return {
    admit: async () => ({ ok: true, route }),
    learn: async () => verdict,
  }
}

describe('withProviderSignals', () => {
  it('announces the provider and egress address of a throttle (the gate’s defer verdict)', async () => {
    const signals = createDeliverySignals({ logger: { warn: () => {} } })
    const heard: ProviderStateChange[] = []
    signals.providerStateChanged.subscribe((change) => heard.push(change))
    const gate = withProviderSignals(
      gateAnswering({ kind: 'defer', delayMs: 1_000, provider: 'google', reply: '421 4.7.28' }),
      signals,
    )
    const verdict = await gate.learn({ ...ask, route, outcome: { kind: 'failed', error: new Error('421') } })
    expect(verdict.kind).toBe('defer')
    expect(heard).toEqual([{ provider: 'google', egress: '127.0.0.1' }])
  })

  it('says nothing when the provider’s state is left as it was', async () => {
    const signals = createDeliverySignals({ logger: { warn: () => {} } })
    const heard: ProviderStateChange[] = []
    signals.providerStateChanged.subscribe((change) => heard.push(change))
    const gate = withProviderSignals(gateAnswering({ kind: 'as-is' }), signals)
    await gate.learn({ ...ask, route, outcome: { kind: 'accepted' } })
    expect(heard).toEqual([])
  })
})
