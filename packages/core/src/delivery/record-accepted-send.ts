import type { DeliveryLogger, DeliveryStore, SentClaim } from './ports'
import { withRetries } from './with-retries'

export type RecordOutcome =
  /** Marked sent under the claim the server accepted the mail with. */
  | { kind: 'recorded' }
  /** Nothing to do: the row already reads sent, or another attempt holds it (it records its own send). */
  | { kind: 'skipped'; reason: 'already-sent' | 'taken-over' | 'not-found' }

/**
 * The second half of a send whose first half succeeded: the server accepted the message under
 * `claim`, marking it `sent` failed (`SendNotRecordedError`), and this retry only records it. It never
 * sends: the mail is out, and a message the server accepted is neither resent nor dead-lettered.
 * Throws while the database stays away; the caller tries again later.
 */
export async function recordAcceptedSend(
  claim: SentClaim,
  deps: { store: DeliveryStore; logger?: DeliveryLogger },
): Promise<RecordOutcome> {
  if (await withRetries(() => deps.store.markSent(claim))) return { kind: 'recorded' }
  const state = await deps.store.readState(claim)
  if (!state) return { kind: 'skipped', reason: 'not-found' }
  if (state.status === 'sent') return { kind: 'skipped', reason: 'already-sent' }
  // The claim expired and another attempt took the row over: it sends (same Message-ID) and records.
  deps.logger?.warn(
    { messageId: claim.messageId, tenantId: claim.tenantId, status: state.status },
    'an accepted send could not be recorded before its claim was taken over',
  )
  return { kind: 'skipped', reason: 'taken-over' }
}
