import { decideAccess } from '@fairlane/core'
import type { TenantSession } from '../auth/session'

/**
 * Why the editor's schedule/send is disabled, said up front (the schedule action refuses the same
 * thing through `authorize('campaigns.send')`), or null when the tenant may send.
 */
export function sendRefusal(session: TenantSession): string | null {
  const decision = decideAccess(session, 'campaigns.send')
  return decision.allowed ? null : decision.message
}
