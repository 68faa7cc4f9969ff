import { updateTenant } from '@fairlane/core'
import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { planChangeOf, planInput, planNameInput } from './plan'
import { platformAdmin, tenantAdminDeps } from './tenant-admin-deps'
import { tenantJson } from './tenant-json'

const updateTenantBody = z
  .strictObject({
    /** Moves the tenant to a named plan (PLANS): every column from it, the overrides kept. */
    planName: planNameInput.optional(),
    plan: planInput
      .refine(
        (plan) => Object.keys(plan).length > 0,
        'give at least one of ratePerSec, burst, weight, transactional, quota',
      )
      .optional(),
    /** Drops the fields set by hand before `plan` sets its own: the tenant follows its named plan again. */
    resetOverrides: z.literal(true, 'must be true (leave it out to keep the overrides)').optional(),
    // Approval is one way: a held tenant is let through, never put back on hold.
    approved: z.literal(true, 'must be true (approval cannot be withdrawn)').optional(),
    // MX mode: a dedicated pool of EGRESS_POOLS, or null for the shared one; core checks it against the pools.
    egressPool: z.string('must be a pool name or null').max(40).nullable().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give planName, plan, resetOverrides, approved or egressPool',
    path: ['plan'],
  })

/**
 * `PATCH /api/admin/tenants/:id` `{ planName?, plan?, resetOverrides?, approved?, egressPool? }` → the
 * tenant: core's `updateTenant`, every change and its audit entries in one transaction.
 */
export function patchTenant(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const parsed = updateTenantBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    if (!isUuid(id)) throw new AppError('not_found', `No tenant with id ${JSON.stringify(id)}`)
    const tenant = await updateTenant(
      {
        tenantId: id,
        actor: platformAdmin(request, actor),
        approved: parsed.data.approved,
        egressPool: parsed.data.egressPool,
        plan: planChangeOf(parsed.data),
      },
      tenantAdminDeps(deps),
    )
    return Response.json(tenantJson(tenant), { headers: { 'cache-control': 'no-store' } })
  })
}
