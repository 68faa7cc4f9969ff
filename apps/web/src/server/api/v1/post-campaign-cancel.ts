import { cancelCampaign } from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { createCampaignStore } from '@fairlane/db/queries/campaigns'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { CampaignCancelledResponse } from './responses'

/**
 * `POST /api/v1/campaigns/:id/cancel` → `{ id, status: "cancelled", sent, cancelled }`: `cancelled`
 * messages held back now, `sent` already gone (mail being handed to SMTP at that moment still goes,
 * and shows in the counts of `GET /api/v1/campaigns/:id`). Again on a cancelled campaign: 200,
 * cancelling nothing more. A sent campaign: 409. Another tenant's or a malformed id: 404.
 */
export function postCampaignCancel(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    if (!isUuid(id)) throw new AppError('not_found', `No campaign with id ${JSON.stringify(id)}`)
    const result = await cancelCampaign(
      { tenantId: caller.tenantId, campaignId: id },
      { store: createCampaignStore(deps.db), clock: deps.clock },
    )
    return Response.json(
      {
        id,
        status: result.status,
        sent: result.sent,
        cancelled: result.cancelled,
      } satisfies CampaignCancelledResponse,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
