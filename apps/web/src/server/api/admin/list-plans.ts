import { columnsOf, type PlanJson, planCatalog, planJson, planNames } from '@fairlane/core'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'

/** One named plan of `GET /api/admin/plans`. */
export interface NamedPlanJson extends PlanJson {
  name: string
}

/** `GET /api/admin/plans` → `[{ name, ratePerSec, burst, weight, transactional, quota }]`, by name (PLANS and the built-in ones). */
export function listPlans(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const plans = deps.plans ?? planCatalog()
    const body: NamedPlanJson[] = planNames(plans).map((name) => ({
      name,
      ...planJson(columnsOf(plans[name] as NonNullable<(typeof plans)[string]>)),
    }))
    return Response.json(body, { headers: { 'cache-control': 'no-store' } })
  })
}
