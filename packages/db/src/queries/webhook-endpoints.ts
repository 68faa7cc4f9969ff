import type {
  AuditOf,
  AuditRecord,
  StoredWebhookEndpoint,
  WebhookDisabledReason,
  WebhookEndpointChange,
  WebhookEndpointQuery,
  WebhookEndpointStore,
  WebhookEventType,
} from '@fairlane/core'
import { and, asc, count, eq, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { type WebhookEndpoint, webhookEndpoints } from '../schema'
import { insertAuditRecord } from './tenant-audit'

/**
 * A tenant's webhook endpoints. Every statement is scoped by `tenant_id` as well as the id, so another
 * tenant's endpoint reads as missing and cannot be changed. The secrets are read for the use cases,
 * which show them only on create and rotate.
 */

const byId = (query: WebhookEndpointQuery) =>
  and(eq(webhookEndpoints.tenantId, query.tenantId), eq(webhookEndpoints.id, query.endpointId))

/**
 * See `WebhookEndpointStore.insertEndpoint`: a transaction-level advisory lock per tenant makes the
 * count and the insert one step for that tenant's concurrent adds.
 */
export function insertWebhookEndpoint(
  db: Executor,
  input: {
    tenantId: string
    url: string
    description: string | null
    events: WebhookEventType[]
    secret: string
    maxEndpoints: number
  },
  audit?: AuditOf<StoredWebhookEndpoint>,
): Promise<StoredWebhookEndpoint | null> {
  const { maxEndpoints, ...values } = input
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${input.tenantId}`}, 0))`,
    )
    const [owned] = await tx
      .select({ count: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.tenantId, input.tenantId))
    if ((owned?.count ?? 0) >= maxEndpoints) return null
    const [row] = await tx.insert(webhookEndpoints).values(values).returning()
    if (!row) throw new Error('insert into webhook_endpoints returned no row')
    const endpoint = toEndpoint(row)
    if (audit) await insertAuditRecord(tx, { tenantId: input.tenantId, record: audit(endpoint) })
    return endpoint
  })
}

export async function findWebhookEndpoint(
  db: Executor,
  query: WebhookEndpointQuery,
): Promise<StoredWebhookEndpoint | null> {
  const [row] = await db.select().from(webhookEndpoints).where(byId(query))
  return row ? toEndpoint(row) : null
}

export async function listWebhookEndpointRows(
  db: Executor,
  query: { tenantId: string },
): Promise<StoredWebhookEndpoint[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.tenantId, query.tenantId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
  return rows.map(toEndpoint)
}

/**
 * See `WebhookEndpointStore.updateEndpoint`: the row locked FOR UPDATE while `change` decides, so a
 * rotation reads the secret it moves to `previous_secret` and two rotations at once cannot both keep
 * the same old one; the engine's writes (failing_since, park) wait for the lock rather than interleave.
 */
export function updateWebhookEndpoint(
  db: Executor,
  query: WebhookEndpointQuery,
  change: (current: StoredWebhookEndpoint) => WebhookEndpointChange | null,
  audit?: AuditOf<StoredWebhookEndpoint>,
): Promise<StoredWebhookEndpoint | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(webhookEndpoints).where(byId(query)).for('update')
    if (!row) return null
    const next = change(toEndpoint(row))
    if (next === null) return toEndpoint(row)
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({ ...next, updatedAt: new Date() })
      .where(byId(query))
      .returning()
    const endpoint = toEndpoint(updated ?? row)
    if (audit) await insertAuditRecord(tx, { tenantId: query.tenantId, record: audit(endpoint) })
    return endpoint
  })
}

/** Deletes the endpoint; its deliveries and their attempts go by the foreign keys' cascade. */
export function deleteWebhookEndpoint(
  db: Executor,
  query: WebhookEndpointQuery,
  audit?: AuditRecord,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const deleted = await tx
      .delete(webhookEndpoints)
      .where(byId(query))
      .returning({ id: webhookEndpoints.id })
    if (deleted.length === 0) return false
    if (audit) await insertAuditRecord(tx, { tenantId: query.tenantId, record: audit })
    return true
  })
}

export function createWebhookEndpointStore(db: Executor): WebhookEndpointStore {
  return {
    insertEndpoint: (input, audit) => insertWebhookEndpoint(db, input, audit),
    findEndpoint: (query) => findWebhookEndpoint(db, query),
    listEndpoints: (query) => listWebhookEndpointRows(db, query),
    updateEndpoint: (query, change, audit) => updateWebhookEndpoint(db, query, change, audit),
    deleteEndpoint: (query, audit) => deleteWebhookEndpoint(db, query, audit),
  }
}

function toEndpoint(row: WebhookEndpoint): StoredWebhookEndpoint {
  return {
    id: row.id,
    tenantId: row.tenantId,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    disabledReason: row.disabledReason as WebhookDisabledReason | null,
    disabledAt: row.disabledAt,
    failingSince: row.failingSince,
    lastSuccessAt: row.lastSuccessAt,
    parkedUntil: row.parkedUntil,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}
