import { apiKeyPrefix, generateApiKey, hashApiKey } from '@fairlane/core'
import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import { createApiKey } from '@fairlane/db/queries/api-keys'
import { insertAuditEntry } from '@fairlane/db/queries/audit-log'
import { createTenant } from '@fairlane/db/queries/tenants'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { planInput } from './plan'

const createTenantBody = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters'),
  plan: planInput.optional(),
})

/**
 * `POST /api/admin/tenants` → `201 { id, apiKey }`. The tenant, its first API key (only its hash is
 * stored: this answer is the one time the key is shown) and the audit entry commit together.
 */
export function postTenant(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const parsed = createTenantBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    const apiKey = generateApiKey()
    const tenant = await deps.db.transaction(async (tx) => {
      const created = await createTenant(tx, { name: parsed.data.name, plan: parsed.data.plan })
      await createApiKey(tx, {
        tenantId: created.id,
        name: 'Default key',
        prefix: apiKeyPrefix(apiKey),
        keyHash: hashApiKey(apiKey),
      })
      await insertAuditEntry(tx, {
        actor,
        action: 'tenant.create',
        targetType: 'tenant',
        targetId: created.id,
        details: { name: created.name, plan: created.plan },
      })
      return created
    })
    return Response.json(
      { id: tenant.id, apiKey },
      { status: 201, headers: { location: `/api/admin/tenants/${tenant.id}`, 'cache-control': 'no-store' } },
    )
  })
}
