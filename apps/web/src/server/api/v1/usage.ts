import { getUsage, type UsageReport } from '@fairlane/core'
import { createUsageStore } from '@fairlane/db/queries/usage'
import { respond } from '../../http/errors'
import { type ApiDeps, authorizeApiCall } from './deps'

/**
 * `GET /api/v1/usage?from=YYYY-MM-DD&to=YYYY-MM-DD` (UTC days, at most 92; default the last 30):
 * accepted, sent, bounced, complained and suppressed per day, in total and by lane, and the tenant's
 * quotas with today's and this month's use when it has any.
 */
export function getUsageReport(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const params = new URL(request.url).searchParams
    const report: UsageReport = await getUsage(
      {
        tenantId: caller.tenantId,
        from: params.get('from'),
        to: params.get('to'),
        quota: caller.plan.quota,
        now: deps.clock.now(),
      },
      { store: createUsageStore(deps.db) },
    )
    return Response.json(report, { headers: { 'cache-control': 'no-store' } })
  })
}
