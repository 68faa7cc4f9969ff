import type {
  ClaimedMessage,
  OutgoingMail,
  ReceiverAdmission,
  ReceiverAsk,
  ReceiverBatchAdmission,
  ReceiverGate,
} from './ports'

/** What the receiving provider is asked about one message of a batch (as `sendMessage` asks it). */
export function receiverAskOf(entry: { message: ClaimedMessage; mail: OutgoingMail }): ReceiverAsk {
  return {
    tenantId: entry.message.tenantId,
    lane: entry.message.lane,
    toAddress: entry.message.toAddress,
    signingDomain: entry.mail.dkim?.domainName,
  }
}

/**
 * MX mode: the provider's budget asked once for a whole batch. The pacer releases a batch for one
 * (tenant, provider) pair, so the first message's recipient names the provider (and the route: the
 * egress address and the provider's connection limits) for all of them. Without `admitUpTo` the
 * gate is asked once per message until it refuses.
 */
export async function admitBatchToReceiver(
  receivers: ReceiverGate,
  entries: ReadonlyArray<{ message: ClaimedMessage; mail: OutgoingMail }>,
): Promise<ReceiverBatchAdmission> {
  const [first] = entries
  if (!first) throw new RangeError('a batch with no message has nothing to ask its receiver')
  if (receivers.admitUpTo) return receivers.admitUpTo(receiverAskOf(first), entries.length)
  let admitted: Extract<ReceiverAdmission, { ok: true }> | undefined
  for (const [index, entry] of entries.entries()) {
    const admission = await receivers.admit(receiverAskOf(entry))
    if (!admission.ok) {
      return admitted
        ? {
            ok: true,
            route: admitted.route,
            granted: index,
            delayMs: admission.delayMs,
            reason: admission.reason,
          }
        : admission
    }
    admitted ??= admission
  }
  return {
    ok: true,
    route: (admitted as Extract<ReceiverAdmission, { ok: true }>).route,
    granted: entries.length,
    delayMs: 0,
  }
}
