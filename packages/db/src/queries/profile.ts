import type { ProfileStore, UserProfile } from '@fairlane/core'
import { eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { users } from '../schema'

/**
 * A user's own settings. Users are not a tenant's: the profile follows its user into every tenant
 * they belong to, so these take the user's id, never a tenant's.
 */
export async function findUserProfile(db: Executor, query: { userId: string }): Promise<UserProfile | null> {
  const [row] = await db
    .select({ name: users.name, timeZone: users.timeZone })
    .from(users)
    .where(eq(users.id, query.userId))
  return row ?? null
}

export async function saveUserProfile(
  db: Executor,
  input: { userId: string } & UserProfile,
): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ name: input.name, timeZone: input.timeZone, updatedAt: new Date() })
    .where(eq(users.id, input.userId))
    .returning({ id: users.id })
  return rows.length > 0
}

export function profileStore(db: Executor): ProfileStore {
  return { saveProfile: (input) => saveUserProfile(db, input) }
}
