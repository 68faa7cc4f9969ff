import { platformActorLabel, TENANT_AUDIT_ACTIONS } from '@fairlane/core'
import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { insertTenantAuditEntry } from '@fairlane/db/queries/tenant-audit'
import {
  approveTenant,
  findTenant,
  setTenantEgressPool,
  updateTenantPlan,
} from '@fairlane/db/queries/tenants'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { CLIENT_ADDRESS_HEADER } from '../../http/client-address'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { planInput } from './plan'
import { tenantJson } from './tenant-json'

const updateTenantBody = z
  .strictObject({
    plan: planInput
      .refine((plan) => Object.keys(plan).length > 0, 'give at least one of ratePerSec, burst, weight')
      .optional(),
    // Approval is one way: a held tenant is let through, never put back on hold.
    approved: z.literal(true, 'must be true (approval cannot be withdrawn)').optional(),
    // MX mode: a dedicated pool of EGRESS_POOLS, or null for the shared one; checked against the pools below.
    egressPool: z.string('must be a pool name or null').max(40).nullable().optional(),
  })
  .refine((body) => body.plan !== undefined || body.approved !== undefined || body.egressPool !== undefined, {
    message: 'give plan, approved or egressPool',
    path: ['plan'],
  })

/**
 * `PATCH /api/admin/tenants/:id` `{ plan?, approved?, egressPool? }` → the tenant. Each change and its
 * audit entry commit together.
 */
export function patchTenant(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const parsed = updateTenantBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    const { egressPool } = parsed.data
    const pools = deps.egressPools ?? []
    if (egressPool !== undefined && egressPool !== null && !pools.includes(egressPool)) {
      throw validationFailed([
        {
          path: 'egressPool',
          message:
            pools.length === 0
              ? 'no egress pools are configured (EGRESS_POOLS)'
              : `must be one of ${pools.join(', ')} (EGRESS_POOLS), or null for the shared pool`,
        },
      ])
    }
    const notFound = new AppError('not_found', `No tenant with id ${JSON.stringify(id)}`)
    if (!isUuid(id)) throw notFound
    const tenant = await deps.db.transaction(async (tx) => {
      const before = await findTenant(tx, { tenantId: id })
      if (!before) throw notFound
      let after = before
      if (parsed.data.approved && before.approvedAt === null) {
        after = (await approveTenant(tx, { tenantId: id, now: deps.clock.now() })) ?? before
        await insertAuditEntry(tx, { actor, action: 'tenant.approve', targetType: 'tenant', targetId: id })
      }
      if (egressPool !== undefined && egressPool !== before.egressPool) {
        after = (await setTenantEgressPool(tx, { tenantId: id, egressPool, now: deps.clock.now() })) ?? after
        await insertAuditEntry(tx, {
          actor,
          action: 'tenant.egress_pool.update',
          targetType: 'tenant',
          targetId: id,
          details: { before: before.egressPool, after: egressPool },
        })
      }
      const plan = parsed.data.plan
      if (plan === undefined) return after
      const changed = await updateTenantPlan(tx, { tenantId: id, plan })
      if (!changed) throw notFound
      await insertAuditEntry(tx, {
        actor,
        action: 'tenant.plan.update',
        targetType: 'tenant',
        targetId: id,
        details: { before: before.plan, after: changed.plan },
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
          details: { before: before.plan, after: changed.plan },
          ipAddress: request.headers.get(CLIENT_ADDRESS_HEADER),
        },
      })
      return changed
    })
    return Response.json(tenantJson(tenant), { headers: { 'cache-control': 'no-store' } })
  })
}
