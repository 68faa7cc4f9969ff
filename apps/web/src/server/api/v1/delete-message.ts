import { cancelMessage } from '@fairlane/core'
import { createMessageCancelStore } from '@fairlane/db/queries/scheduled-messages'
import { respond } from '../../http/errors'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { MessageCancelledResponse } from './responses'

/**
 * `DELETE /api/v1/messages/:id` → `200 { id, status: "cancelled" }` while no worker has claimed it
 * (scheduled, or queued and not yet taken); 409 once it is being sent or has finished; 404 for an
 * unknown id or another tenant's.
 */
export function deleteMessage(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const result = await cancelMessage(
      { tenantId: caller.tenantId, messageId: id },
      { store: createMessageCancelStore(deps.db) },
    )
    return Response.json(result satisfies MessageCancelledResponse, {
      headers: { 'cache-control': 'no-store' },
    })
  })
}
