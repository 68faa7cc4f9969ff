import {
  type ApiKeyScope,
  type ApiKeyStore,
  type AuditActor,
  type NewApiKeyRow,
  TENANT_AUDIT_ACTIONS,
} from '@fairlane/core'
import { and, count, desc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { apiKeys, tenants, users } from '../schema'
import { auditWho, insertTenantAuditEntry } from './tenant-audit'

export interface StoredApiKey {
  id: string
  tenantId: string
  prefix: string
  keyHash: string
  /** What the key may call (`routes.ts` declares each route's need) and the one domain it sends from. */
  scope: ApiKeyScope
  domain: string | null
  revokedAt: Date | null
  lastUsedAt: Date | null
  /**
   * The tenant's default sender, read with the key (its primary key, the same round trip), so
   * accepting a message that names no `from` needs no query of its own to know whether there is one.
   */
  defaultFrom: string | null
  defaultReplyTo: string | null
  /** The tenant's plan columns, read in the same round trip: admission needs no query of its own. */
  txRatePerSec: number | null
  txBurst: number | null
  quotaDaily: number | null
  quotaMonthly: number | null
}

/**
 * The key whose visible prefix matches, revoked or not (the caller decides and compares the hash).
 * The one api-key query without a tenant id: it is how a request finds its tenant.
 */
export async function findApiKeyByPrefix(
  db: Executor,
  query: { prefix: string },
): Promise<StoredApiKey | null> {
  const [row] = await db
    .select({
      id: apiKeys.id,
      tenantId: apiKeys.tenantId,
      prefix: apiKeys.prefix,
      keyHash: apiKeys.keyHash,
      scope: apiKeys.scope,
      domain: apiKeys.domain,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      defaultFrom: tenants.defaultFrom,
      defaultReplyTo: tenants.defaultReplyTo,
      txRatePerSec: tenants.txRatePerSec,
      txBurst: tenants.txBurst,
      quotaDaily: tenants.quotaDaily,
      quotaMonthly: tenants.quotaMonthly,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(eq(apiKeys.prefix, query.prefix))
  return row ?? null
}

/**
 * Records use, at most once per `minIntervalMs` per key across every web process: the WHERE makes a
 * second writer within the interval a no-op instead of another row version on every request.
 */
export async function touchApiKey(
  db: Executor,
  input: { tenantId: string; keyId: string; now: Date; minIntervalMs: number },
): Promise<void> {
  const staleBefore = new Date(input.now.getTime() - input.minIntervalMs)
  await db
    .update(apiKeys)
    .set({ lastUsedAt: input.now })
    .where(
      and(
        eq(apiKeys.id, input.keyId),
        eq(apiKeys.tenantId, input.tenantId),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore)),
      ),
    )
}

/** A key row as it is; `scope` defaults to `full`, no domain, no maker (tests and the seed use this). */
export async function createApiKey(
  db: Executor,
  input: Pick<NewApiKeyRow, 'tenantId' | 'name' | 'prefix' | 'keyHash'> &
    Partial<Pick<NewApiKeyRow, 'scope' | 'domain' | 'createdByUserId'>>,
): Promise<{ id: string }> {
  const [row] = await db.insert(apiKeys).values(input).returning({ id: apiKeys.id })
  if (!row) throw new Error('insert into api_keys returned no row')
  return row
}

/**
 * `issueApiKey`'s store: the count of active keys and the insert run under a lock on the tenant's row,
 * so concurrent creations for one tenant take turns and the cap holds exactly.
 */
export function createApiKeyStore(db: Database): ApiKeyStore {
  return {
    insertWithinLimit: ({ maxActive, actor, ...key }) =>
      db.transaction(async (tx) => {
        await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, key.tenantId)).for('update')
        const active = await countActiveApiKeys(tx, { tenantId: key.tenantId })
        if (active >= maxActive) return { created: false as const, active }
        const { id } = await createApiKey(tx, key)
        await insertTenantAuditEntry(tx, {
          tenantId: key.tenantId,
          entry: {
            ...auditWho(actor),
            action: TENANT_AUDIT_ACTIONS.apiKeyCreate,
            targetType: 'api_key',
            targetId: id,
            details: { name: key.name, prefix: key.prefix, scope: key.scope, domain: key.domain },
          },
        })
        return { created: true as const, id }
      }),
  }
}

/** How many of the tenant's keys are not revoked (the cap `issueApiKey` holds). */
export async function countActiveApiKeys(db: Executor, query: { tenantId: string }): Promise<number> {
  const [row] = await db
    .select({ active: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, query.tenantId), isNull(apiKeys.revokedAt)))
  return row?.active ?? 0
}

/** Revokes an active key of the tenant, with its audit entry in the same transaction; false: none. */
export async function revokeApiKey(
  db: Database,
  input: { tenantId: string; keyId: string; now: Date; actor: AuditActor },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: input.now })
      .where(
        and(eq(apiKeys.id, input.keyId), eq(apiKeys.tenantId, input.tenantId), isNull(apiKeys.revokedAt)),
      )
      .returning({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix })
    if (!row) return false
    await insertTenantAuditEntry(tx, {
      tenantId: input.tenantId,
      entry: {
        ...auditWho(input.actor),
        action: TENANT_AUDIT_ACTIONS.apiKeyRevoke,
        targetType: 'api_key',
        targetId: row.id,
        details: { name: row.name, prefix: row.prefix },
      },
    })
    return true
  })
}

export interface ApiKeyListing {
  id: string
  name: string
  prefix: string
  scope: ApiKeyScope
  domain: string | null
  /** The maker's email now (null: made before 0019, or the user is gone). */
  createdBy: string | null
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

const listingColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scope: apiKeys.scope,
  domain: apiKeys.domain,
  createdBy: users.email,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
}

/**
 * One page of the tenant's keys for the API keys page, newest first; never the hash. `after` is the
 * last key id of the previous page, its (created_at, id) read in SQL (a JavaScript date would drop
 * PostgreSQL's microseconds and skip or repeat a key at the boundary); another tenant's id matches
 * nothing. Up to `limit + 1` rows, so the caller knows whether there is a next page.
 */
export async function listApiKeys(
  db: Executor,
  query: { tenantId: string; limit: number; after?: string | undefined },
): Promise<ApiKeyListing[]> {
  const conditions = [eq(apiKeys.tenantId, query.tenantId)]
  if (query.after) {
    conditions.push(
      sql`(${apiKeys.createdAt}, ${apiKeys.id}) < (select k.created_at, k.id from api_keys k where k.id = ${query.after}::uuid and k.tenant_id = ${query.tenantId}::uuid)`,
    )
  }
  return db
    .select(listingColumns)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(and(...conditions))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(query.limit + 1)
}

/** One key of one tenant; another tenant's id reads as absent. */
export async function findApiKey(
  db: Executor,
  query: { tenantId: string; keyId: string },
): Promise<ApiKeyListing | null> {
  const [row] = await db
    .select(listingColumns)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(and(eq(apiKeys.id, query.keyId), eq(apiKeys.tenantId, query.tenantId)))
  return row ?? null
}
