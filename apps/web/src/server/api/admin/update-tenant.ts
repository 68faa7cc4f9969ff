import { platformActorLabel, TENANT_AUDIT_ACTIONS } from '@fairlane/core'
import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { insertTenantAuditEntry } from '@fairlane/db/queries/tenant-audit'
import { findTenant, updateTenantPlan } from '@fairlane/db/queries/tenants'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { CLIENT_ADDRESS_HEADER } from '../../http/client-address'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { planInput } from './plan'
import { tenantJson } from './tenant-json'

const updateTenantBody = z.strictObject({
  plan: planInput.refine(
    (plan) => Object.keys(plan).length > 0,
    'give at least one of ratePerSec, burst, weight',
  ),
})

/** `PATCH /api/admin/tenants/:id` `{ plan }` → the tenant. The change and its audit entry commit together. */
export function patchTenant(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const parsed = updateTenantBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    const notFound = new AppError('not_found', `No tenant with id ${JSON.stringify(id)}`)
    if (!isUuid(id)) throw notFound
    const tenant = await deps.db.transaction(async (tx) => {
      const before = await findTenant(tx, { tenantId: id })
      if (!before) throw notFound
      const after = await updateTenantPlan(tx, { tenantId: id, plan: parsed.data.plan })
      if (!after) throw notFound
      await insertAuditEntry(tx, {
        actor,
        action: 'tenant.plan.update',
        targetType: 'tenant',
        targetId: id,
        details: { before: before.plan, after: after.plan },
      })
      // The tenant's own log says the platform changed its plan, in the same transaction.
      await insertTenantAuditEntry(tx, {
        tenantId: id,
        entry: {
          actorUserId: null,
          actor: platformActorLabel(actor),
          action: TENANT_AUDIT_ACTIONS.planUpdate,
          targetType: 'tenant',
          targetId: id,
          details: { before: before.plan, after: after.plan },
          ipAddress: request.headers.get(CLIENT_ADDRESS_HEADER),
        },
      })
      return after
    })
    return Response.json(tenantJson(tenant), { headers: { 'cache-control': 'no-store' } })
  })
}
