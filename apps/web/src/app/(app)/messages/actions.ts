'use server'

import { cancelMessage } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createMessageCancelStore } from '@fairlane/db/queries/scheduled-messages'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

/**
 * The message log's and the message page's Cancel: the same use case as `DELETE /api/v1/messages/:id`
 * (a scheduled message, or a queued one no worker has taken). Too late → the page says so.
 */
export async function cancelMessageAction(form: FormData): Promise<void> {
  const { session } = await authorize('campaigns.manage')
  const messageId = String(form.get('messageId') ?? '')
  if (!isUuid(messageId)) notFound()
  const back = String(form.get('back') ?? '') === 'list' ? '/messages' : `/messages/${messageId}`
  try {
    await cancelMessage(
      { tenantId: session.tenantId, messageId },
      { store: createMessageCancelStore(container().database.db) },
    )
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error) && error.code === 'conflict') redirect(`${back}?notice=not-cancellable`)
    throw error
  }
  revalidatePath('/messages')
  redirect(`${back}?notice=cancelled`)
}
