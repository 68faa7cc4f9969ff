import { WEBHOOK_CHANNEL, type WebhookEventType } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/**
 * Deliveries of an event that is not a message event (a domain verified or failed), written in the
 * caller's transaction, the one that changed what the event reports: one row per enabled endpoint of
 * the tenant subscribed to it, with NOTIFY at commit. Message events get theirs from the trigger on
 * `message_events` (migration 0018). Returns how many were written.
 */
export async function insertWebhookDeliveries(
  tx: Executor,
  input: { tenantId: string; type: WebhookEventType; data: Record<string, unknown> },
): Promise<number> {
  const rows = await tx.execute<{ id: string }>(sql`
    insert into webhook_deliveries (tenant_id, endpoint_id, event_type, payload)
    select e.tenant_id, e.id, ${input.type},
      jsonb_build_object(
        'type', ${input.type}::text,
        'createdAt', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'data', ${JSON.stringify(input.data)}::jsonb)
    from webhook_endpoints e
    where e.tenant_id = ${input.tenantId} and e.enabled and ${input.type} = any(e.events)
    returning id`)
  if (rows.length > 0) await tx.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`)
  return rows.length
}

/**
 * The nightly cleanup's webhook part (EVENT_RETENTION_DAYS): deliveries created before `before`,
 * found through the BRIN on `created_at`, with their attempts (the foreign key's cascade, by the
 * attempts' primary key). At most `limit` deliveries per statement; answers how many it deleted.
 */
export async function deleteWebhookDeliveriesBefore(
  db: Executor,
  batch: { before: Date; limit: number },
): Promise<number> {
  const [row] = await db.execute<{ deleted: number }>(sql`
    with deleted as (
      delete from webhook_deliveries
      where id = any(array(
        select id from webhook_deliveries
        where created_at < ${batch.before.toISOString()}::timestamptz
        limit ${batch.limit}))
      returning 1
    )
    select count(*)::int as deleted from deleted`)
  return row?.deleted ?? 0
}
