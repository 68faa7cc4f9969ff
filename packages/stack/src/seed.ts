import { randomUUID } from 'node:crypto'
import { apiKeyPrefix, hashApiKey } from '@fairlane/core'
import { accounts, apiKeys, type Database, tenants, users } from '@fairlane/db'
import { and, eq } from 'drizzle-orm'
import { hashPasswordLikeBetterAuth } from './admin-password'

/** The demo tenant has a fixed id so seeding is an upsert that can run on every start. */
export const DEMO_TENANT_ID = '00000000-0000-4000-8000-00000000d3e0'

/** The demo platform admin's sign-in email; the password is DEMO_ADMIN_PASSWORD (see secrets.ts). */
export const DEMO_ADMIN_EMAIL = 'admin@fairlane.local'

/**
 * Seeds the demo tenant and makes `apiKey` one of its keys. Safe to run on every start: it changes
 * nothing the second time, and a new DEMO_API_KEY adds a key rather than replacing the old one.
 */
export async function seedDemo(db: Database, options: { apiKey: string }): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .insert(tenants)
      .values({ id: DEMO_TENANT_ID, name: 'Demo Shop', ratePerSec: 50, burst: 100, weight: 1 })
      .onConflictDoNothing({ target: tenants.id })
    const prefix = apiKeyPrefix(options.apiKey)
    const keyHash = hashApiKey(options.apiKey)
    const existing = await tx
      .select({ id: apiKeys.id, tenantId: apiKeys.tenantId, keyHash: apiKeys.keyHash })
      .from(apiKeys)
      .where(eq(apiKeys.prefix, prefix))
    const row = existing[0]
    if (row && (row.tenantId !== DEMO_TENANT_ID || row.keyHash !== keyHash)) {
      throw new Error(`DEMO_API_KEY's first 12 characters (${prefix}) already belong to another API key`)
    }
    if (!row) await tx.insert(apiKeys).values({ tenantId: DEMO_TENANT_ID, name: 'Demo key', prefix, keyHash })
    await tx
      .update(apiKeys)
      .set({ revokedAt: null })
      .where(and(eq(apiKeys.prefix, prefix), eq(apiKeys.tenantId, DEMO_TENANT_ID)))
  })
}

/**
 * Makes DEMO_ADMIN_EMAIL a platform admin who signs in with `password` (the admin console at /admin).
 * Safe on every start: an existing user keeps their id and sessions, is made admin again and gets
 * this password (so a changed DEMO_ADMIN_PASSWORD takes effect). The user belongs to no tenant.
 */
export async function seedPlatformAdmin(db: Database, options: { password: string }): Promise<void> {
  const passwordHash = await hashPasswordLikeBetterAuth(options.password)
  await db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({
        id: randomUUID(),
        name: 'Platform Admin',
        email: DEMO_ADMIN_EMAIL,
        emailVerified: true,
        isPlatformAdmin: true,
      })
      .onConflictDoUpdate({ target: users.email, set: { isPlatformAdmin: true, updatedAt: new Date() } })
      .returning({ id: users.id })
    if (!user) throw new Error('upserting the demo admin returned no row')
    const updated = await tx
      .update(accounts)
      .set({ password: passwordHash, updatedAt: new Date() })
      .where(and(eq(accounts.userId, user.id), eq(accounts.providerId, 'credential')))
      .returning({ id: accounts.id })
    if (updated.length === 0) {
      await tx.insert(accounts).values({
        id: randomUUID(),
        accountId: user.id,
        providerId: 'credential',
        userId: user.id,
        password: passwordHash,
      })
    }
  })
}
