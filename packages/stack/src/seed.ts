import { apiKeyPrefix, hashApiKey } from '@fairlane/core'
import { apiKeys, type Database, tenants } from '@fairlane/db'
import { and, eq } from 'drizzle-orm'

/** The demo tenant has a fixed id so seeding is an upsert that can run on every start. */
export const DEMO_TENANT_ID = '00000000-0000-4000-8000-00000000d3e0'

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
