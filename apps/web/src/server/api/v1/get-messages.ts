import { listMessages } from '@fairlane/core'
import { createMessageListStore } from '@fairlane/db/queries/messages-log'
import { respond } from '../../http/errors'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { MessageListResponse } from './responses'

/**
 * `GET /api/v1/messages?status=&to=&campaignId=&from=&until=&cursor=&limit=` → `{ items, nextCursor? }`,
 * newest first. A `full` key only: the list shows every recipient and subject of the tenant, more than
 * an app given a `sending` key to send (and to read back what it sent by id) should see.
 */
export function getMessages(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const page = await listMessages(
      { tenantId: caller.tenantId, query: Object.fromEntries(new URL(request.url).searchParams) },
      { store: createMessageListStore(deps.db) },
    )
    return Response.json(
      {
        items: page.items.map((item) => ({
          id: item.id,
          to: item.toAddress,
          subject: item.subject,
          status: item.status,
          lane: item.lane,
          ...(item.campaignId ? { campaignId: item.campaignId } : {}),
          createdAt: item.createdAt.toISOString(),
          ...(item.sentAt ? { sentAt: item.sentAt.toISOString() } : {}),
          ...(item.sendAt ? { sendAt: item.sendAt.toISOString() } : {}),
        })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      } satisfies MessageListResponse,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
