import { AppError } from '../errors/app-error'
import type { AdminTenant, TenantAdminTransaction } from './ports'

/** The tenant, locked; 404 when there is none (an id that is not a uuid never reaches here). */
export async function lockedTenant(tx: TenantAdminTransaction, tenantId: string): Promise<AdminTenant> {
  const tenant = await tx.lockTenant({ tenantId })
  if (!tenant) throw new AppError('not_found', `No tenant with id ${JSON.stringify(tenantId)}`)
  return tenant
}
