import { eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { type Tenant, tenants } from '../schema'

/** A tenant's bulk plan: its token bucket (`ratePerSec`, `burst`) and its share of spare capacity. */
export interface TenantPlan {
  ratePerSec: number
  burst: number
  weight: number
}

export interface TenantView {
  id: string
  name: string
  plan: TenantPlan
  createdAt: Date
  updatedAt: Date
}

const columns = {
  id: tenants.id,
  name: tenants.name,
  ratePerSec: tenants.ratePerSec,
  burst: tenants.burst,
  weight: tenants.weight,
  createdAt: tenants.createdAt,
  updatedAt: tenants.updatedAt,
}

type Row = Pick<Tenant, keyof typeof columns>

function view(row: Row): TenantView {
  const { ratePerSec, burst, weight, ...rest } = row
  return { ...rest, plan: { ratePerSec, burst, weight } }
}

/** Creates a tenant; the one query without a tenant id, because it makes one. Plan defaults come from the schema. */
export async function createTenant(
  db: Executor,
  input: { name: string; plan?: Partial<TenantPlan> | undefined },
): Promise<TenantView> {
  const [row] = await db
    .insert(tenants)
    .values({ name: input.name, ...input.plan })
    .returning(columns)
  if (!row) throw new Error('insert into tenants returned no row')
  return view(row)
}

export async function findTenant(db: Executor, query: { tenantId: string }): Promise<TenantView | null> {
  const [row] = await db.select(columns).from(tenants).where(eq(tenants.id, query.tenantId))
  return row ? view(row) : null
}

/** Changes some or all of a plan; null when the tenant does not exist. */
export async function updateTenantPlan(
  db: Executor,
  input: { tenantId: string; plan: Partial<TenantPlan> },
): Promise<TenantView | null> {
  const [row] = await db
    .update(tenants)
    .set({ ...input.plan, updatedAt: new Date() })
    .where(eq(tenants.id, input.tenantId))
    .returning(columns)
  return row ? view(row) : null
}
