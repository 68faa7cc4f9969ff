import type { Config } from '@fairlane/config'
import type { InvitationLimits, TemplateLimits } from '@fairlane/core'

/** What one tenant may hold or make through the API and the pages (the configuration's per-tenant caps). */
export interface TenantLimits {
  invitations: InvitationLimits
  templates: TemplateLimits
  /** MAX_DOMAINS_PER_TENANT. */
  maxDomains: number
}

export function tenantLimitsOf(
  config: Pick<
    Config,
    | 'INVITATIONS_PER_TENANT_PER_HOUR'
    | 'MAX_OPEN_INVITATIONS_PER_TENANT'
    | 'MAX_TEMPLATES_PER_TENANT'
    | 'TEMPLATE_VERSIONS_KEPT'
    | 'MAX_DOMAINS_PER_TENANT'
  >,
): TenantLimits {
  return {
    invitations: {
      perHour: config.INVITATIONS_PER_TENANT_PER_HOUR,
      maxOpen: config.MAX_OPEN_INVITATIONS_PER_TENANT,
    },
    templates: {
      maxTemplates: config.MAX_TEMPLATES_PER_TENANT,
      versionsKept: config.TEMPLATE_VERSIONS_KEPT,
    },
    maxDomains: config.MAX_DOMAINS_PER_TENANT,
  }
}
