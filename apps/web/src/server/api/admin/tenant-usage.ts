import { getUsage, type UsageReport } from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { createUsageStore, findTenantAdmissionPlan } from '@fairlane/db/queries/usage'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import type { AdminDeps } from './deps'

/**
 * `GET /api/admin/tenants/:id/usage?from=&to=` → the tenant's usage report, the same body its own
 * `GET /api/v1/usage` answers (accepted and outcomes per UTC day and lane, its quotas and their use),
 * for the console's tenant view.
 */
export function getTenantUsage(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const plan = isUuid(id) ? await findTenantAdmissionPlan(deps.db, { tenantId: id }) : null
    if (!plan) throw new AppError('not_found', `No tenant with id ${JSON.stringify(id)}`)
    const params = new URL(request.url).searchParams
    const report: UsageReport = await getUsage(
      {
        tenantId: id,
        from: params.get('from'),
        to: params.get('to'),
        quota: plan.quota,
        now: deps.clock.now(),
      },
      { store: createUsageStore(deps.db) },
    )
    return Response.json(report, { headers: { 'cache-control': 'no-store' } })
  })
}
