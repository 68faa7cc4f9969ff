import { uuid } from 'drizzle-orm/pg-core'
import { tenants } from './tenants'

/**
 * The `tenant_id` column of every tenant-owned table. Deleting a tenant deletes its data, so nothing
 * of a removed tenant lingers; each such table has an index starting with `tenant_id` that serves
 * both the tenant's queries and the cascade. Not re-exported: it is a schema building block.
 */
export const tenantId = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' })
