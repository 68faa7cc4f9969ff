import { z } from 'zod'
import { AppError } from '../errors/app-error'
import type { MessageCancelStore } from './ports'

/**
 * `DELETE /api/v1/messages/:id` and the app's Cancel button: a message no worker has claimed yet
 * (scheduled, queued, pending, held) becomes `cancelled` with an event `cancelled`. A queued one may
 * already have a job: the send's claim only takes `queued`/`pending` rows, so that job finds the row
 * cancelled and ends without sending. Once it is `sending` or finished → 409; another tenant's id or an
 * unknown one → 404. Cancelling a cancelled message answers the same again (a retry is harmless).
 */
export async function cancelMessage(
  input: { tenantId: string; messageId: string },
  deps: { store: MessageCancelStore },
): Promise<{ id: string; status: 'cancelled' }> {
  if (!z.uuid().safeParse(input.messageId).success) throw notFound()
  const outcome = await deps.store.cancel(input)
  if (outcome.kind === 'not-found') throw notFound()
  if (outcome.kind === 'too-late' && outcome.status !== 'cancelled') {
    throw new AppError('conflict', `This message is ${outcome.status} and can no longer be cancelled`)
  }
  return { id: input.messageId, status: 'cancelled' }
}

function notFound(): AppError {
  return new AppError('not_found', 'No such message')
}
