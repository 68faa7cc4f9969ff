import { AppError } from '@fairlane/core/errors'
import { type TenantDay, tenantDailyHistory } from '@fairlane/db/queries/admin-tenants'
import { findTenant } from '@fairlane/db/queries/tenants'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import type { AdminDeps } from './deps'

export const HISTORY_DAYS = 30

/** The body of `GET /api/admin/tenants/:id/daily`, which the console's 30-day chart reads. */
export interface TenantHistoryJson {
  tenantId: string
  days: TenantDay[]
}

/**
 * `GET /api/admin/tenants/:id/daily` → `{ tenantId, days: [{ day, sent, failed, suppressed, deferred }] }`:
 * the last 30 days the worker's daily rollup wrote (`tenant_daily_stats`), oldest first. Days not
 * rolled up yet are absent, not zero: the console says so rather than drawing a false flat line.
 */
export function getTenantHistory(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const tenant = isUuid(id) ? await findTenant(deps.db, { tenantId: id }) : null
    if (!tenant) throw new AppError('not_found', `No tenant with id ${JSON.stringify(id)}`)
    const days = await tenantDailyHistory(deps.db, {
      tenantId: id,
      today: deps.clock.now(),
      days: HISTORY_DAYS,
    })
    return Response.json({ tenantId: id, days } satisfies TenantHistoryJson, {
      headers: { 'cache-control': 'no-store' },
    })
  })
}
