import { MAX_CAMPAIGN_HTML_BYTES, parseCampaignRequest, scheduleCampaign } from '@fairlane/core'
import { createCampaignStore } from '@fairlane/db/queries/campaigns'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { templateSyntaxError } from '@fairlane/mail/templates'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { CampaignScheduledResponse } from './responses'

/**
 * Room for the largest allowed HTML after JSON escaping plus the other fields; a bigger body is cut
 * off while reading (413), a smaller one with too much HTML is refused by the use case (413 naming html).
 */
export const MAX_CAMPAIGN_BODY_BYTES = 2 * MAX_CAMPAIGN_HTML_BYTES

/**
 * `POST /api/v1/campaigns` → `201 { id, status: "scheduled", sendAt, warnings }`; a `from` not on one
 * of the tenant's verified domains → 422 naming `from`; a key restricted to a domain → 403 unless the
 * campaign's From (or the tenant's default it falls back to) is on it; `warnings` lists what
 * was accepted but deserves a look, e.g. `{ code: "empty-audience", message }`.
 */
export function postCampaign(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_CAMPAIGN_BODY_BYTES)
    const campaign = await scheduleCampaign(
      {
        tenantId: caller.tenantId,
        draft: parseCampaignRequest(body),
        keyDomain: { domain: caller.domain, defaultFrom: caller.defaultSender.from },
      },
      {
        store: createCampaignStore(deps.db),
        templates: { syntaxError: templateSyntaxError },
        domains: createSenderDomains(deps.db),
        clock: deps.clock,
      },
    )
    return Response.json(
      {
        id: campaign.id,
        status: campaign.status,
        sendAt: campaign.sendAt?.toISOString() ?? null,
        warnings: campaign.warnings,
      } satisfies CampaignScheduledResponse,
      { status: 201, headers: { location: `/api/v1/campaigns/${campaign.id}`, 'cache-control': 'no-store' } },
    )
  })
}
