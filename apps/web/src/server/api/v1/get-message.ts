import { describeDeliveryError } from '@fairlane/core/delivery'
import { AppError } from '@fairlane/core/errors'
import { listMessageEvents } from '@fairlane/db/queries/message-events'
import { findMessage } from '@fairlane/db/queries/messages-read'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { listMessageAttachments } from '../../messages/message-attachments'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { MessageResponse } from './responses'

/**
 * `GET /api/v1/messages/:id`. A malformed id and another tenant's id both answer 404, exactly like a
 * missing one, so a key learns nothing about messages outside its tenant.
 */
export function getMessage(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const query = { tenantId: caller.tenantId, messageId: id }
    // Side by side: both read by the tenant's id, so another tenant's message has no events to show.
    const [message, events, attachments] = isUuid(id)
      ? await Promise.all([
          findMessage(deps.db, query),
          listMessageEvents(deps.db, query),
          listMessageAttachments(deps.db, query),
        ])
      : [null, [], []]
    if (!message) throw new AppError('not_found', `No message with id ${JSON.stringify(id)}`)
    return Response.json(
      {
        id: message.id,
        status: message.status,
        lane: message.lane,
        attempts: message.attempts,
        // A code and a fixed short reason; the raw SMTP reply (it can name internal relays) is for admins.
        ...describeDeliveryError(message.lastErrorCode),
        createdAt: message.createdAt.toISOString(),
        ...(message.sentAt !== null ? { sentAt: message.sentAt.toISOString() } : {}),
        ...(message.sendAt !== null ? { sendAt: message.sendAt.toISOString() } : {}),
        // The body, variables and rendered content were cleared by the retention (README, "Retention and caps").
        ...(message.bodyRemovedAt !== null ? { bodyRemovedAt: message.bodyRemovedAt.toISOString() } : {}),
        // Names, types and decoded sizes; the bytes are never served back.
        attachments: attachments.map((attachment) => ({
          filename: attachment.filename,
          contentType: attachment.contentType,
          size: attachment.sizeBytes,
        })),
        events: events.map((event) => ({
          type: event.type,
          at: event.at.toISOString(),
          ...(event.detail !== null ? { detail: event.detail } : {}),
        })),
      } satisfies MessageResponse,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
