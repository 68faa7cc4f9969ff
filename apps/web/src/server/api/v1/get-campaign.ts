import { AppError } from '@fairlane/core/errors'
import { campaignEngagementCounts } from '@fairlane/db/queries/campaign-engagement'
import { campaignMessageCounts, emptyCampaignCounts, findCampaign } from '@fairlane/db/queries/campaigns'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { CampaignResponse } from './responses'

/**
 * `GET /api/v1/campaigns/:id` → `{ id, status, sendAt, counts }`, counts from the campaign's messages
 * by status, and the unique opens and clicks. Another tenant's id and a malformed id answer 404 like a missing one.
 */
export function getCampaign(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const campaign = isUuid(id)
      ? await findCampaign(deps.db, { tenantId: caller.tenantId, campaignId: id })
      : null
    if (!campaign) throw new AppError('not_found', `No campaign with id ${JSON.stringify(id)}`)
    const query = { tenantId: caller.tenantId, campaignId: campaign.id }
    const [counts, engagement] = await Promise.all([
      campaignMessageCounts(deps.db, { tenantId: caller.tenantId, campaignIds: [campaign.id] }),
      campaignEngagementCounts(deps.db, query),
    ])
    return Response.json(
      {
        id: campaign.id,
        status: campaign.status,
        sendAt: campaign.sendAt?.toISOString() ?? null,
        from: campaign.fromAddress,
        replyTo: campaign.replyTo,
        counts: { ...(counts.get(campaign.id) ?? emptyCampaignCounts()), ...engagement },
      } satisfies CampaignResponse,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
