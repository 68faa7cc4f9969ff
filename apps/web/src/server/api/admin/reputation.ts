import type { GuardrailThresholds, ReputationStage } from '@fairlane/core'
import { listGuardedTenants, readGuardrailThresholds } from '@fairlane/db/queries/reputation'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'

/** The body of `GET /api/admin/reputation`, which the console's guardrail section reads. */
export interface ReputationJson {
  thresholds: GuardrailThresholds
  tenants: Array<{
    id: string
    name: string
    stage: ReputationStage
    reason: string | null
    changedAt: string | null
  }>
}

/**
 * `GET /api/admin/reputation` → `{ thresholds: { warn, slow, pause: { hardBounceRate, complaintRate,
 * minSent } }, tenants: [{ id, name, stage, reason, changedAt }] }`: the thresholds in force and every
 * tenant the reputation guardrail has moved from `ok`, paused ones first.
 */
export function getReputation(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const [thresholds, tenants] = await Promise.all([
      readGuardrailThresholds(deps.db),
      listGuardedTenants(deps.db),
    ])
    return Response.json(
      {
        thresholds,
        tenants: tenants.map((tenant) => ({
          id: tenant.tenantId,
          name: tenant.name,
          stage: tenant.stage,
          reason: tenant.reason,
          changedAt: tenant.changedAt?.toISOString() ?? null,
        })),
      } satisfies ReputationJson,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}
