import { z } from 'zod'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { cursorField, encodeCursor, pageLimitField } from '../paging/cursor'
import { type WebhookDeliveryView, webhookDeliveryView } from './delivery-view'
import { WEBHOOK_DELIVERY_STATUSES } from './event-types'
import { findOwnEndpoint } from './get-webhook-endpoint'
import type { WebhookDeliveryDeps, WebhookEndpointQuery } from './ports'

export const DEFAULT_DELIVERIES_PAGE = 50
export const MAX_DELIVERIES_PAGE = 200

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The query of `GET /api/v1/webhooks/:id/deliveries` (the API document renders it). */
export const webhookDeliveriesQuerySchema = z.strictObject({
  status: z
    .enum(WEBHOOK_DELIVERY_STATUSES, `must be one of ${WEBHOOK_DELIVERY_STATUSES.join(', ')}`)
    .optional()
    .meta({ description: 'Only deliveries in this status' }),
  cursor: cursorField({ maxLength: 100, accepts: (id) => UUID.test(id) }),
  limit: pageLimitField(MAX_DELIVERIES_PAGE),
})

export interface WebhookDeliveryPage {
  items: WebhookDeliveryView[]
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string
}

// The cursor is the page's last delivery id: the log is newest first by (created_at, id), and the
// store finds that row's place itself, so no timestamp is rounded on its way through a client.

/** An endpoint's delivery log, newest first, a page at a time; a filter or cursor that is wrong is a 400 naming it. */
export async function listWebhookDeliveries(
  input: WebhookEndpointQuery & { query: Record<string, string> },
  deps: WebhookDeliveryDeps,
): Promise<WebhookDeliveryPage> {
  const parsed = webhookDeliveriesQuerySchema.safeParse(input.query)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  const { status, cursor, limit = DEFAULT_DELIVERIES_PAGE } = parsed.data
  const query = { tenantId: input.tenantId, endpointId: input.endpointId }
  await findOwnEndpoint(query, { store: deps.endpoints })
  // One more than the page says whether another page follows.
  const rows = await deps.deliveries.listDeliveries({
    ...query,
    limit: limit + 1,
    ...(status ? { status } : {}),
    ...(cursor ? { after: cursor } : {}),
  })
  const items = rows.slice(0, limit).map(webhookDeliveryView)
  const last = items.at(-1)
  return rows.length > limit && last ? { items, nextCursor: encodeCursor(last.id) } : { items }
}
