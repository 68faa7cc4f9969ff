import { asc, desc, eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { type MembershipRole, memberships, tenants, users } from '../schema'

export interface TenantMembership {
  tenantId: string
  tenantName: string
  role: MembershipRole
  /** False while the tenant is held for the platform admin's approval (SIGNUP_MODE=approve). */
  tenantApproved: boolean
}

/**
 * A new tenant (plan from the schema defaults) with `userId` as its owner, in one transaction, so
 * there is never a tenant nobody can open nor an owner of nothing. Takes no tenant id: it makes one.
 * `held` (SIGNUP_MODE=approve) leaves `approved_at` null until the platform admin approves it.
 */
export async function createTenantWithOwner(
  db: Database,
  input: { userId: string; tenantName: string; held?: boolean },
): Promise<{ tenantId: string }> {
  return db.transaction(async (tx) => {
    const [tenant] = await tx
      .insert(tenants)
      .values({ name: input.tenantName, ...(input.held ? { approvedAt: null } : {}) })
      .returning({ id: tenants.id })
    if (!tenant) throw new Error('insert into tenants returned no row')
    await tx.insert(memberships).values({ tenantId: tenant.id, userId: input.userId, role: 'owner' })
    return { tenantId: tenant.id }
  })
}

/**
 * The tenant a signed-in user acts for: the session's active tenant when the user is still a member
 * of it, else the user's oldest membership. Null when the user belongs to no tenant.
 */
export async function findActingMembership(
  db: Executor,
  query: { userId: string; preferredTenantId?: string | null | undefined },
): Promise<TenantMembership | null> {
  const preferred = query.preferredTenantId ?? null
  const oldestFirst = [asc(memberships.createdAt), asc(memberships.tenantId)]
  const [row] = await db
    .select({
      tenantId: memberships.tenantId,
      tenantName: tenants.name,
      role: memberships.role,
      tenantApproved: sql<boolean>`${tenants.approvedAt} is not null`,
    })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, query.userId))
    .orderBy(
      ...(preferred === null ? [] : [desc(sql`${memberships.tenantId} = ${preferred}::uuid`)]),
      ...oldestFirst,
    )
    .limit(1)
  return row ?? null
}

/** Removes a user whose sign-up could not be completed; sessions and accounts go with it (cascade). */
export async function deleteUser(db: Executor, input: { userId: string }): Promise<void> {
  await db.delete(users).where(eq(users.id, input.userId))
}

/** The tenant ids and roles of one user, oldest first (for tests and an eventual tenant switcher). */
export async function listMemberships(
  db: Executor,
  query: { userId: string },
): Promise<Array<{ tenantId: string; role: MembershipRole }>> {
  return db
    .select({ tenantId: memberships.tenantId, role: memberships.role })
    .from(memberships)
    .where(eq(memberships.userId, query.userId))
    .orderBy(asc(memberships.createdAt))
}
