import { eq, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { tenants } from '../schema'

/** The platform tenant's name: what account mail is signed with. */
export const PLATFORM_TENANT_NAME = 'Fairlane'

/** Fairlane's own tenant sends a login's worth of mail, never a newsletter: a plan with room for bursts. */
const PLATFORM_PLAN = { ratePerSec: 100, burst: 200, weight: 1 }

/**
 * The id of Fairlane's own tenant, made on first use (one at most: `tenants_platform_unique`). Its
 * messages are the platform's account mail: verification, password reset, invitations, notices.
 * Concurrent first calls race on the unique index; the loser reads the winner's row.
 */
export async function ensurePlatformTenant(db: Executor, input: { name: string }): Promise<string> {
  const [made] = await db
    .insert(tenants)
    .values({ name: input.name, isPlatform: true, ...PLATFORM_PLAN })
    .onConflictDoNothing({ target: tenants.isPlatform, where: sql`${tenants.isPlatform}` })
    .returning({ id: tenants.id })
  if (made) return made.id
  const [found] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.isPlatform, true))
  if (!found) throw new Error('the platform tenant is neither insertable nor readable')
  return found.id
}
