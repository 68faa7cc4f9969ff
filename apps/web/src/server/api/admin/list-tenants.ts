import { LANES } from '@fairlane/core'
import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import { listTenantLoads, type TenantLoad } from '@fairlane/db/queries/admin-tenants'
import { createTokenBuckets } from '@fairlane/fairness'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'
import { queueCall } from './queue-access'

const listQuery = z.strictObject({
  limit: z.coerce.number('must be a number').int('must be a whole number').min(1).max(500).default(100),
  /** The last tenant id of the previous page (`X-Next-Cursor`). */
  cursor: z.uuid('must be a tenant id (uuid), as X-Next-Cursor gave it').optional(),
})

/** One tenant of `GET /api/admin/tenants`, as the console's tenant table reads it. */
export interface TenantLoadJson extends TenantLoad {
  /** The token buckets' refusals over the last minute, all lanes. */
  deferredLastMinute: number
}

/**
 * `GET /api/admin/tenants?limit=&cursor=` → one page of tenants by name, each `{ id, name, plan,
 * backlog: { pending, queued }, sentLastMinute, deferredLastMinute }`; `X-Next-Cursor` names the
 * cursor of the next page when there is one. Deferrals are the token buckets' refusals over the last
 * minute, summed over the tenant's buckets on every lane (`<lane>:<tenantId>`, as the worker's tenant
 * gate names them), read for the page's tenants only.
 */
export function listTenants(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const query = listQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams))
    if (!query.success) throw validationFailed(fieldIssues(query.error))
    const { limit, cursor } = query.data
    const rows = await listTenantLoads(deps.db, { now: deps.clock.now(), limit, after: cursor })
    const loads = rows.slice(0, limit)
    const next = rows.length > limit ? loads.at(-1)?.id : undefined
    const buckets = loads.flatMap((tenant) => LANES.map((lane) => `${lane}:${tenant.id}`))
    const deferred = await queueCall(() =>
      createTokenBuckets(deps.redis, { prefix: `${deps.queuePrefix}:` }).deferredRecently(buckets, 60_000),
    )
    const body: TenantLoadJson[] = loads.map((tenant) => ({
      ...tenant,
      deferredLastMinute: LANES.reduce((sum, lane) => sum + (deferred.get(`${lane}:${tenant.id}`) ?? 0), 0),
    }))
    return Response.json(body, {
      headers: { 'cache-control': 'no-store', ...(next ? { 'x-next-cursor': next } : {}) },
    })
  })
}
