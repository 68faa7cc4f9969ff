import { type ProvisionTenantDeps, planCatalog } from '@fairlane/core'
import { createTenantAdminStore } from '@fairlane/db/queries/tenant-admin'
import { CLIENT_ADDRESS_HEADER } from '../../http/client-address'
import type { AdminDeps } from './deps'

/** What core's tenant-admin use cases take, from the admin API's deps. */
export function tenantAdminDeps(deps: AdminDeps): ProvisionTenantDeps & { egressPools: readonly string[] } {
  return {
    store: createTenantAdminStore(deps.db),
    clock: deps.clock,
    plans: deps.plans ?? planCatalog(),
    egressPools: deps.egressPools ?? [],
    ...deps.provisioning,
  }
}

/** The platform admin as the audit logs name them, and the address the request came from. */
export function platformAdmin(request: Request, actor: string) {
  return { label: actor, ipAddress: request.headers.get(CLIENT_ADDRESS_HEADER) }
}
