import { and, eq, inArray, isNotNull } from 'drizzle-orm'
import type { Executor } from '../client'
import { type ReputationStage, type Tenant, tenants } from '../schema'

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
  /** Null while the tenant is held for the platform admin's approval (SIGNUP_MODE=approve). */
  approvedAt: Date | null
  /** Fairlane's own tenant, which sends the account mail. */
  isPlatform: boolean
  /** MX mode: the dedicated egress pool it is pinned to; null: the shared default pool. */
  egressPool: string | null
  /** The reputation guardrail's stage and why (the dashboard's banner says it to the tenant). */
  reputation: { stage: ReputationStage; reason: string | null; changedAt: Date | null }
}

const columns = {
  id: tenants.id,
  name: tenants.name,
  ratePerSec: tenants.ratePerSec,
  burst: tenants.burst,
  weight: tenants.weight,
  createdAt: tenants.createdAt,
  updatedAt: tenants.updatedAt,
  approvedAt: tenants.approvedAt,
  isPlatform: tenants.isPlatform,
  egressPool: tenants.egressPool,
  reputationStage: tenants.reputationStage,
  reputationReason: tenants.reputationReason,
  reputationChangedAt: tenants.reputationChangedAt,
}

type Row = Pick<Tenant, keyof typeof columns>

function view(row: Row): TenantView {
  const { ratePerSec, burst, weight, reputationStage, reputationReason, reputationChangedAt, ...rest } = row
  return {
    ...rest,
    plan: { ratePerSec, burst, weight },
    reputation: { stage: reputationStage, reason: reputationReason, changedAt: reputationChangedAt },
  }
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

/** The egress pool of each tenant asked about that has one (the worker's cache reads it). */
export async function findEgressPools(db: Executor, tenantIds: string[]): Promise<Map<string, string>> {
  if (tenantIds.length === 0) return new Map()
  const rows = await db
    .select({ id: tenants.id, egressPool: tenants.egressPool })
    .from(tenants)
    .where(and(inArray(tenants.id, tenantIds), isNotNull(tenants.egressPool)))
  return new Map(rows.flatMap((row) => (row.egressPool === null ? [] : [[row.id, row.egressPool]])))
}

/** Tenants' weights (their share of what they compete for), by id; unknown ids are left out. */
export async function findTenantWeights(db: Executor, tenantIds: string[]): Promise<Map<string, number>> {
  if (tenantIds.length === 0) return new Map()
  const rows = await db
    .select({ id: tenants.id, weight: tenants.weight })
    .from(tenants)
    .where(inArray(tenants.id, tenantIds))
  return new Map(rows.map((row) => [row.id, row.weight]))
}
