import type { ReceiverGate } from '@fairlane/core/delivery'
import type { DeliverySignals } from '../signals'

/**
 * The receiver gate, announcing each provider state it wrote: its `defer` verdict comes only after
 * a throttle, once the provider's cut rate and pause are stored, so a listener that reads the
 * provider's rate then reads the new one. Emitted after `learn` returns: the send never waits on a
 * listener, and a listener's failure is the signal's to log.
 */
export function withProviderSignals(
  gate: ReceiverGate,
  signals: Pick<DeliverySignals, 'providerStateChanged'>,
): ReceiverGate {
  return {
    admit: (ask) => gate.admit(ask),
    ...(gate.admitUpTo ? { admitUpTo: gate.admitUpTo } : {}),
    ...(gate.stillOpen ? { stillOpen: gate.stillOpen } : {}),
    async learn(input) {
      const verdict = await gate.learn(input)
      if (verdict.kind === 'defer')
        signals.providerStateChanged.emit({
          provider: input.route.provider,
          egress: input.route.egressAddress ?? '',
        })
      return verdict
    },
  }
}
