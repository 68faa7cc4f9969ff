import { overridesOf, provisionTenant } from '@fairlane/core'
import { parseIdempotencyKey } from '@fairlane/core/accept'
import { fieldIssues, validationFailed } from '@fairlane/core/errors'
import { z } from 'zod'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { domainJson } from '../v1/domains'
import type { DomainResponse } from '../v1/responses'
import { type AdminDeps, MAX_ADMIN_BODY_BYTES } from './deps'
import { planInput, planNameInput } from './plan'
import { platformAdmin, tenantAdminDeps } from './tenant-admin-deps'

const createTenantBody = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters'),
  /** A named plan (PLANS); unset: standard. */
  planName: planNameInput.optional(),
  plan: planInput.optional(),
  /** Invited as the tenant's owner. */
  owner: z
    .string('must be an email address')
    .trim()
    .max(254, 'must be at most 254 characters')
    .pipe(z.email('must be an email address'))
    .transform((email) => email.toLowerCase())
    .optional(),
  /** A sending domain, added with its DNS records. */
  sendingDomain: z.string('must be a domain name such as example.com').max(1_000).optional(),
})

/** `POST /api/admin/tenants`' answer: `{ id, apiKey }` as before, `owner` and `sendingDomain` when asked for. */
export interface ProvisionedTenantJson {
  id: string
  /** Shown once (and again to a replay with the same Idempotency-Key); null: that key was revoked since. */
  apiKey: string | null
  owner?: { email: string; invitationId: string | null; expiresAt: string | null; member: boolean }
  sendingDomain?: DomainResponse | null
}

/**
 * `POST /api/admin/tenants` `{ name, planName?, plan?, owner?, sendingDomain? }` → `201 { id, apiKey,
 * owner?, sendingDomain? }`: core's `provisionTenant`. With `Idempotency-Key`, a retry with the same
 * body answers the same tenant and key (`Idempotent-Replayed: true`) and another body is a 422.
 */
export function postTenant(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { actor } = await authorizeAdmin(request, deps)
    const idempotencyKey = parseIdempotencyKey(request.headers.get('idempotency-key'))
    const parsed = createTenantBody.safeParse(await readJsonBody(request, MAX_ADMIN_BODY_BYTES))
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    const { plan, ...body } = parsed.data
    const made = await provisionTenant(
      {
        ...body,
        overrides: plan === undefined ? undefined : overridesOf(plan),
        idempotencyKey,
        actor: platformAdmin(request, actor),
      },
      tenantAdminDeps(deps),
    )
    const answer: ProvisionedTenantJson = { id: made.tenant.id, apiKey: made.apiKey }
    if (made.owner) {
      answer.owner = { ...made.owner, expiresAt: made.owner.expiresAt?.toISOString() ?? null }
    }
    if (body.sendingDomain !== undefined) {
      answer.sendingDomain = made.sendingDomain ? domainJson(made.sendingDomain) : null
    }
    return Response.json(answer, {
      status: 201,
      headers: {
        location: `/api/admin/tenants/${made.tenant.id}`,
        'cache-control': 'no-store',
        ...(made.replayed ? { 'idempotent-replayed': 'true' } : {}),
      },
    })
  })
}
