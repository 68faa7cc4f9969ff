import { RESUME_REASON_MAX_LENGTH, resumeTenant } from '@fairlane/core'
import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { platformAdmin, tenantAdminDeps } from './tenant-admin-deps'
import { tenantJson } from './tenant-json'

const resumeBody = z.strictObject({
  reason: z
    .string('must say why the tenant may send again')
    .trim()
    .min(1, 'must say why the tenant may send again')
    .max(RESUME_REASON_MAX_LENGTH, `must be at most ${RESUME_REASON_MAX_LENGTH} characters`),
})

/**
 * `POST /api/admin/tenants/:id/resume` `{ "reason" }` → the tenant, back at `ok`: core's
 * `resumeTenant` (the reputation guardrail's pause or slow lifted, judged afresh from now, on both
 * audit logs with the reason). 409 when the tenant is at `ok`.
 */
export function postResumeTenant(request: Request, id: string, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const parsed = resumeBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    if (!isUuid(id)) throw new AppError('not_found', `No tenant with id ${JSON.stringify(id)}`)
    const tenant = await resumeTenant(
      { tenantId: id, reason: parsed.data.reason, actor: platformAdmin(request, actor) },
      tenantAdminDeps(deps),
    )
    return Response.json(tenantJson(tenant), { headers: { 'cache-control': 'no-store' } })
  })
}
