import { findCampaign } from '@fairlane/db/queries/campaigns'
import { getTenantSession } from '@/server/auth/session'
import { loadCampaignProgress } from '@/server/campaigns/campaign-progress'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

export const dynamic = 'force-dynamic'

const NO_STORE = { 'cache-control': 'no-store' }

/**
 * The campaign page's live numbers (session-authenticated JSON, polled every second or two):
 * `{ status, counts, recipientCount, progress, sendsPerSecond: [{ t, sent }] }`.
 */
export async function GET(
  _request: Request,
  context: { params: Promise<{ id: string }> },
): Promise<Response> {
  const session = await getTenantSession()
  if (!session) {
    return Response.json(
      { error: { code: 'unauthorized', message: 'Sign in first' } },
      { status: 401, headers: NO_STORE },
    )
  }
  const { id } = await context.params
  const { db } = container().database
  const campaign = isUuid(id) ? await findCampaign(db, { tenantId: session.tenantId, campaignId: id }) : null
  if (!campaign) {
    return Response.json(
      { error: { code: 'not_found', message: 'No such campaign' } },
      { status: 404, headers: NO_STORE },
    )
  }
  const view = await loadCampaignProgress(db, { tenantId: session.tenantId, campaign, now: new Date() })
  return Response.json(view, { headers: NO_STORE })
}
