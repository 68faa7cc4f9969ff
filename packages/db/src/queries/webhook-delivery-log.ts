import type {
  AuditOf,
  StoredWebhookAttempt,
  StoredWebhookDelivery,
  WebhookDeliveryEventType,
  WebhookDeliveryStatus,
  WebhookDeliveryStore,
} from '@fairlane/core'
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { type WebhookDelivery, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema'
import { insertAuditRecord } from './tenant-audit'
import { notifyWebhooks } from './webhook-deliveries'

/**
 * The delivery log's reads and the two writes the tenant makes (a test event, a replay). Every
 * statement names the tenant and the endpoint: a delivery id of another endpoint or tenant matches
 * nothing. Each write wakes the webhook relay with NOTIFY in its own transaction, so the relay sees
 * the committed row as soon as it wakes and never waits for its next poll.
 */

const DELIVERY_COLUMNS = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  webhookId: webhookDeliveries.webhookId,
  eventType: webhookDeliveries.eventType,
  payload: webhookDeliveries.payload,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastError: webhookDeliveries.lastError,
  lastResponse: webhookDeliveries.lastResponse,
  deliveredAt: webhookDeliveries.deliveredAt,
  failedAt: webhookDeliveries.failedAt,
  createdAt: webhookDeliveries.createdAt,
}

type DeliveryRow = Pick<WebhookDelivery, keyof typeof DELIVERY_COLUMNS>

/**
 * A delivery due now, inserted only when the tenant has the endpoint, with NOTIFY in the same
 * transaction. The endpoint row is read FOR KEY SHARE, so a delete of it waits for this commit (and
 * then takes the delivery with it) rather than leaving a delivery whose endpoint vanished in between.
 */
export function insertWebhookDelivery(
  db: Executor,
  input: {
    tenantId: string
    endpointId: string
    eventType: WebhookDeliveryEventType
    payload: Record<string, unknown>
  },
  audit?: AuditOf<StoredWebhookDelivery>,
): Promise<StoredWebhookDelivery | null> {
  return db.transaction(async (tx) => {
    const [endpoint] = await tx
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.tenantId, input.tenantId), eq(webhookEndpoints.id, input.endpointId)))
      .for('key share')
    if (!endpoint) return null
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({
        tenantId: input.tenantId,
        endpointId: endpoint.id,
        eventType: input.eventType,
        payload: input.payload,
      })
      .returning(DELIVERY_COLUMNS)
    if (!row) throw new Error('insert into webhook_deliveries returned no row')
    await notifyWebhooks(tx)
    const delivery = toDelivery(row)
    if (audit) await insertAuditRecord(tx, { tenantId: input.tenantId, record: audit(delivery) })
    return delivery
  })
}

/**
 * Replay: the deliveries become pending and due now, `failed_at` cleared; `webhook_id`, `attempts`
 * and `locked_until` stay (an attempt in flight keeps its lease, so the replay cannot run beside it).
 */
export function replayWebhookDeliveries(
  db: Executor,
  input: { tenantId: string; endpointId: string; deliveryIds: readonly string[] },
  audit?: AuditOf<StoredWebhookDelivery[]>,
): Promise<StoredWebhookDelivery[]> {
  if (input.deliveryIds.length === 0) return Promise.resolve([])
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: sql`now()`, failedAt: null })
      .where(
        and(
          eq(webhookDeliveries.tenantId, input.tenantId),
          eq(webhookDeliveries.endpointId, input.endpointId),
          inArray(webhookDeliveries.id, [...input.deliveryIds]),
        ),
      )
      .returning(DELIVERY_COLUMNS)
    const replayed = rows.map(toDelivery)
    if (replayed.length > 0) {
      await notifyWebhooks(tx)
      if (audit) await insertAuditRecord(tx, { tenantId: input.tenantId, record: audit(replayed) })
    }
    return replayed
  })
}

/**
 * The log, newest first by (created_at, id) on its index; `after` is the previous page's last id,
 * whose place is read in the statement itself (by tenant too, so another tenant's id finds nothing).
 */
export async function listWebhookDeliveryRows(
  db: Executor,
  input: {
    tenantId: string
    endpointId: string
    status?: WebhookDeliveryStatus
    after?: string
    limit: number
  },
): Promise<StoredWebhookDelivery[]> {
  const conditions = [
    eq(webhookDeliveries.tenantId, input.tenantId),
    eq(webhookDeliveries.endpointId, input.endpointId),
  ]
  if (input.status) conditions.push(eq(webhookDeliveries.status, input.status))
  if (input.after) {
    const place = sql`(select d.created_at, d.id from webhook_deliveries d
      where d.id = ${input.after} and d.tenant_id = ${input.tenantId})`
    conditions.push(sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) < ${place}`)
  }
  const rows = await db
    .select(DELIVERY_COLUMNS)
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(input.limit)
  return rows.map(toDelivery)
}

export async function findWebhookDelivery(
  db: Executor,
  input: { tenantId: string; endpointId: string; deliveryId: string },
): Promise<StoredWebhookDelivery | null> {
  const [row] = await db
    .select(DELIVERY_COLUMNS)
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.tenantId, input.tenantId),
        eq(webhookDeliveries.endpointId, input.endpointId),
        eq(webhookDeliveries.id, input.deliveryId),
      ),
    )
  return row ? toDelivery(row) : null
}

export function listWebhookAttempts(
  db: Executor,
  input: { tenantId: string; deliveryId: string },
): Promise<StoredWebhookAttempt[]> {
  return db
    .select({
      id: webhookAttempts.id,
      attemptedAt: webhookAttempts.attemptedAt,
      durationMs: webhookAttempts.durationMs,
      statusCode: webhookAttempts.statusCode,
      error: webhookAttempts.error,
      responseExcerpt: webhookAttempts.responseExcerpt,
    })
    .from(webhookAttempts)
    .where(
      and(eq(webhookAttempts.tenantId, input.tenantId), eq(webhookAttempts.deliveryId, input.deliveryId)),
    )
    .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id))
}

export function createWebhookDeliveryStore(db: Executor): WebhookDeliveryStore {
  return {
    insertDelivery: (input, audit) => insertWebhookDelivery(db, input, audit),
    replayDeliveries: (input, audit) => replayWebhookDeliveries(db, input, audit),
    listDeliveries: (input) => listWebhookDeliveryRows(db, input),
    findDelivery: (input) => findWebhookDelivery(db, input),
    listAttempts: (input) => listWebhookAttempts(db, input),
  }
}

function toDelivery(row: DeliveryRow): StoredWebhookDelivery {
  return { ...row }
}
