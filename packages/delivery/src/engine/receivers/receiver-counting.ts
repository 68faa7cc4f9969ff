import type { ReceiverAsk, ReceiverGate } from '@fairlane/core/delivery'
import type { ReceiverCountInput } from '@fairlane/fairness'

/**
 * The receiver gate, counting what it sees for the console (`createReceiverCounters` of
 * @fairlane/fairness, read by `GET /api/admin/receivers`): each attempt the gate learns from (with
 * the tenant, for the tenants' shares), each accepted reply, each throttle reply (the gate's `defer`
 * verdict: it answers one for a throttle only) and each deferral (an admission refused, or a throttle
 * sending the message back). The counts are written without being awaited: a Redis hiccup costs a
 * count, never a send; `onError` hears of it.
 */
export function withReceiverCounts(
  gate: ReceiverGate,
  deps: {
    counters: { record(input: ReceiverCountInput): Promise<void> }
    onError?: (error: unknown) => void
  },
): ReceiverGate {
  const count = (input: ReceiverCountInput) => {
    deps.counters.record(input).catch((error: unknown) => deps.onError?.(error))
  }
  return {
    async admit(ask) {
      const admission = await gate.admit(ask)
      if (!admission.ok) {
        const egress = admission.egressAddress ?? ''
        count({ provider: admission.provider, egress, tenantId: ask.tenantId, kind: 'deferred' })
      }
      return admission
    },
    ...(gate.admitUpTo
      ? {
          admitUpTo: async (ask: ReceiverAsk, wanted: number) => {
            const admission = await (gate.admitUpTo as NonNullable<ReceiverGate['admitUpTo']>)(ask, wanted)
            // A batch the budget refused in part or in whole: one deferral, as one message's.
            if (!admission.ok || admission.granted < wanted) {
              const egress = admission.ok
                ? (admission.route.egressAddress ?? '')
                : (admission.egressAddress ?? '')
              const provider = admission.ok ? admission.route.provider : admission.provider
              count({ provider, egress, tenantId: ask.tenantId, kind: 'deferred' })
            }
            return admission
          },
        }
      : {}),
    ...(gate.stillOpen
      ? {
          stillOpen: (input: Parameters<NonNullable<ReceiverGate['stillOpen']>>[0]) => {
            const open = (gate.stillOpen as NonNullable<ReceiverGate['stillOpen']>)(input)
            if (!open.ok) {
              const egress = open.egressAddress ?? ''
              count({ provider: open.provider, egress, tenantId: input.tenantId, kind: 'deferred' })
            }
            return open
          },
        }
      : {}),
    async learn(input) {
      const verdict = await gate.learn(input)
      const pair = {
        provider: input.route.provider,
        egress: input.route.egressAddress ?? '',
        tenantId: input.tenantId,
      }
      count({ ...pair, kind: 'attempt' })
      if (input.outcome.kind === 'accepted') count({ ...pair, kind: 'accepted' })
      if (verdict.kind === 'defer') {
        count({ ...pair, kind: 'throttled' })
        count({ ...pair, kind: 'deferred' })
      }
      return verdict
    },
  }
}
