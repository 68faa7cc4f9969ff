import type { MessageStatus } from '../domain/statuses'
import type { FeedbackStore, MessageRef } from './ports'

/**
 * Statuses a message passes through before its send is recorded, and `sent` itself (a send recorded
 * just as the store answered): feedback waits while the message has one.
 */
const WAITING: readonly MessageStatus[] = ['pending', 'queued', 'sending', 'held', 'sent']

/**
 * A hard bounce or complaint can arrive before the worker has recorded the send the remote accepted
 * (its grouped mark-sent has not committed, or it died between the reply and the commit and the send
 * will be retried). The event and the suppression are written at once; the status cannot be, since
 * the worker marks only a `sending` row sent. This gives each such message the status its events call
 * for once it is `sent`, and answers the ones still waiting (unsent, or sent an instant ago), to be
 * tried again later. A message that ended otherwise (failed, suppressed, cancelled) or was deleted is
 * let go.
 */
export async function settleFeedbackStatuses(
  refs: readonly MessageRef[],
  deps: { store: Pick<FeedbackStore, 'settleStatuses'> },
): Promise<{ settled: number; stillPending: MessageRef[] }> {
  if (refs.length === 0) return { settled: 0, stillPending: [] }
  const statuses = new Map(
    (await deps.store.settleStatuses(refs)).map((row) => [row.messageId, row.status] as const),
  )
  const stillPending: MessageRef[] = []
  let settled = 0
  for (const ref of refs) {
    const status = statuses.get(ref.messageId)
    if (status === 'bounced' || status === 'complained') settled += 1
    else if (status !== undefined && WAITING.includes(status)) stillPending.push(ref)
  }
  return { settled, stillPending }
}
