import type { Config } from '@fairlane/config'
import type { InvitationLimits } from '@fairlane/core'

/** What one tenant may hold or make through the API and the pages (the configuration's per-tenant caps). */
export interface TenantLimits {
  invitations: InvitationLimits
}

export function tenantLimitsOf(
  config: Pick<Config, 'INVITATIONS_PER_TENANT_PER_HOUR' | 'MAX_OPEN_INVITATIONS_PER_TENANT'>,
): TenantLimits {
  return {
    invitations: {
      perHour: config.INVITATIONS_PER_TENANT_PER_HOUR,
      maxOpen: config.MAX_OPEN_INVITATIONS_PER_TENANT,
    },
  }
}
