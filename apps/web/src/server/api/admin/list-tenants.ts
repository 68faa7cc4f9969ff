import { LANES } from '@fairlane/core'
import { listTenantLoads } from '@fairlane/db/queries/admin-tenants'
import { createTokenBuckets } from '@fairlane/fairness'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'
import { queueCall } from './queue-access'

/**
 * `GET /api/admin/tenants` → per tenant `{ id, name, plan, backlog: { pending, queued }, sentLastMinute,
 * deferredLastMinute }`. Deferrals are the token buckets' refusals over the last minute, summed over
 * the tenant's buckets on every lane (`<lane>:<tenantId>`, as the worker's tenant gate names them).
 */
export function listTenants(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const loads = await listTenantLoads(deps.db, { now: deps.clock.now() })
    const buckets = loads.flatMap((tenant) => LANES.map((lane) => `${lane}:${tenant.id}`))
    const deferred = await queueCall(() =>
      createTokenBuckets(deps.redis, { prefix: `${deps.queuePrefix}:` }).deferredRecently(buckets, 60_000),
    )
    const body = loads.map((tenant) => ({
      ...tenant,
      deferredLastMinute: LANES.reduce((sum, lane) => sum + (deferred.get(`${lane}:${tenant.id}`) ?? 0), 0),
    }))
    return Response.json(body, { headers: { 'cache-control': 'no-store' } })
  })
}
