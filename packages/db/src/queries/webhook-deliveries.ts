import { type AttemptTarget, WEBHOOK_CHANNEL } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'

/**
 * The webhook lane's side of `webhook_deliveries` (the outbox the trigger of migration 0018 and the
 * domain checks write): which endpoints have due work, the claim (a lease per attempt), and what an
 * attempt leaves behind. The tenant-facing reads and replays are in `webhook-delivery-log.ts`.
 */

export interface ReadyWebhookEndpoint {
  endpointId: string
  tenantId: string
  /** Parked before and its park is over: one probe at a time until an attempt is answered. */
  probing: boolean
  inFlight: number
  /** The tenant's attempts in flight, all its endpoints together (those with nothing due too). */
  tenantInFlight: number
}

/**
 * Enabled endpoints that are not parked and have a due delivery whose lease is free, with their
 * attempts in flight and their tenant's (leases not yet expired, read through the partial index of
 * leased rows, which holds only attempts in flight: a backlog of thousands costs nothing here).
 */
export async function findReadyWebhookEndpoints(db: Executor): Promise<ReadyWebhookEndpoint[]> {
  const rows = await db.execute<{
    id: string
    tenant_id: string
    probing: boolean
    in_flight: number
    tenant_in_flight: number
  }>(sql`
    with leased as (
      select l.tenant_id, l.endpoint_id, count(*)::int as n from webhook_deliveries l
      where l.status = 'pending' and l.locked_until is not null and l.locked_until > now()
      group by l.tenant_id, l.endpoint_id)
    select e.id, e.tenant_id, e.parked_until is not null as probing,
      coalesce((select sum(n) from leased where leased.endpoint_id = e.id), 0)::int as in_flight,
      coalesce((select sum(n) from leased where leased.tenant_id = e.tenant_id), 0)::int as tenant_in_flight
    from webhook_endpoints e
    where e.enabled and (e.parked_until is null or e.parked_until <= now())
      and exists (
        select 1 from webhook_deliveries d
        where d.endpoint_id = e.id and d.status = 'pending' and d.next_attempt_at <= now()
          and (d.locked_until is null or d.locked_until <= now()))`)
  return rows.map((row) => ({
    endpointId: row.id,
    tenantId: row.tenant_id,
    probing: row.probing,
    inFlight: row.in_flight,
    tenantInFlight: row.tenant_in_flight,
  }))
}

export interface ClaimedWebhookDelivery {
  deliveryId: string
  tenantId: string
  endpointId: string
  /** This attempt's number: the lease's token (the attempt is recorded only while it is current). */
  attempt: number
}

/**
 * Leases up to `count` due deliveries of each endpoint, oldest due first, and counts the attempt:
 * `locked_until` keeps every other relay off them until the attempt is recorded or the lease runs out
 * (a crashed worker's attempt is taken again then, under a new attempt number).
 *
 * The leases are the in-flight slots, so the claim keeps both caps itself: each endpoint within
 * `caps.endpoint` (one while probing after a park or a slow answer, none while parked) and each tenant
 * within `caps.tenant`, counting the leases in flight when it runs. Claims queue on one
 * transaction-level advisory lock (a few milliseconds each) and count after the previous claim
 * committed, so relays in several processes, woken by one NOTIFY, cannot each fill the same free slots.
 */
export async function claimWebhookDeliveries(
  db: Database,
  input: {
    perEndpoint: ReadonlyMap<string, number>
    leaseMs: number
    caps: { endpoint: number; tenant: number }
  },
): Promise<ClaimedWebhookDelivery[]> {
  if (input.perEndpoint.size === 0) return []
  const wanted = JSON.stringify([...input.perEndpoint].map(([endpoint_id, n]) => ({ endpoint_id, n })))
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('fairlane:webhook-claim', 0))`)
    return tx.execute<{ id: string; tenant_id: string; endpoint_id: string; attempts: number }>(sql`
      with wanted as (
        select * from jsonb_to_recordset(${wanted}::jsonb) as w(endpoint_id uuid, n int)
      ), leased as (
        select l.tenant_id, l.endpoint_id, count(*)::int as n from webhook_deliveries l
        where l.status = 'pending' and l.locked_until is not null and l.locked_until > now()
        group by l.tenant_id, l.endpoint_id
      ), room as (
        select w.endpoint_id, e.tenant_id,
          greatest(0, least(w.n,
            (case when e.parked_until > now() then 0 when e.parked_until is not null then 1
              else ${input.caps.endpoint} end)
            - coalesce((select sum(n) from leased where leased.endpoint_id = w.endpoint_id), 0)))::int as n,
          ${input.caps.tenant} - coalesce((select sum(n) from leased where leased.tenant_id = e.tenant_id), 0)
            as tenant_room
        from wanted w join webhook_endpoints e on e.id = w.endpoint_id and e.enabled
      ), due as (
        select d.id, d.next_attempt_at, r.endpoint_id, r.tenant_id, r.tenant_room from room r
        cross join lateral (
          select d.id, d.next_attempt_at from webhook_deliveries d
          where d.endpoint_id = r.endpoint_id and d.status = 'pending' and d.next_attempt_at <= now()
            and (d.locked_until is null or d.locked_until <= now())
          order by d.next_attempt_at
          limit r.n
          for update skip locked) d
      ), turns as (
        select id, tenant_id, tenant_room,
          row_number() over (partition by endpoint_id order by next_attempt_at, id) as turn
        from due
      ), picked as (
        -- A tenant over its room keeps its endpoints' first deliveries: they take turns, as in the plan.
        select id from (
          select id, tenant_room, row_number() over (partition by tenant_id order by turn, id) as place
          from turns) t
        where place <= tenant_room
      )
      update webhook_deliveries d
      set locked_until = now() + make_interval(secs => ${input.leaseMs / 1000}), attempts = d.attempts + 1
      from picked
      where d.id = picked.id
      returning d.id, d.tenant_id, d.endpoint_id, d.attempts`)
  })
  return rows.map((row) => ({
    deliveryId: row.id,
    tenantId: row.tenant_id,
    endpointId: row.endpoint_id,
    attempt: row.attempts,
  }))
}

/** A lease given back unused (its job could not be added): due again at once, the attempt uncounted. */
export async function releaseWebhookClaims(
  db: Executor,
  claims: readonly ClaimedWebhookDelivery[],
): Promise<void> {
  if (claims.length === 0) return
  const list = JSON.stringify(claims.map((claim) => ({ id: claim.deliveryId, attempts: claim.attempt })))
  await db.execute(sql`
    update webhook_deliveries d
    set locked_until = null, attempts = d.attempts - 1
    from jsonb_to_recordset(${list}::jsonb) as c(id uuid, attempts int)
    where d.id = c.id and d.attempts = c.attempts and d.status = 'pending'`)
}

export type WebhookAttemptTarget = AttemptTarget

/** The delivery and its endpoint, if this attempt still holds the lease and the endpoint is enabled. */
export async function findWebhookAttemptTarget(
  db: Executor,
  input: { tenantId: string; deliveryId: string; attempt: number },
): Promise<WebhookAttemptTarget | null> {
  const [row] = await db.execute<{
    id: string
    endpoint_id: string
    url: string
    webhook_id: string
    payload: Record<string, unknown>
    secret: string
    previous_secret: string | null
    park_level: number
  }>(sql`
    select d.id, d.endpoint_id, e.url, d.webhook_id, d.payload, e.secret, e.park_level,
      case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret
    from webhook_deliveries d
    join webhook_endpoints e on e.id = d.endpoint_id and e.tenant_id = d.tenant_id
    where d.tenant_id = ${input.tenantId} and d.id = ${input.deliveryId} and d.attempts = ${input.attempt}
      and d.status = 'pending' and d.locked_until > now() and e.enabled`)
  if (!row) return null
  return {
    deliveryId: row.id,
    tenantId: input.tenantId,
    endpointId: row.endpoint_id,
    url: row.url,
    webhookId: row.webhook_id,
    payload: row.payload,
    secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
    parkLevel: row.park_level,
  }
}

/** Wakes the webhook relays; inside a transaction PostgreSQL delivers it at COMMIT. */
export async function notifyWebhooks(db: Executor): Promise<void> {
  await db.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`)
}

/** For the pending-deliveries gauge: read through the partial index of pending rows. */
export async function countPendingWebhookDeliveries(db: Executor): Promise<number> {
  const [row] = await db.execute<{ n: number }>(sql`
    select count(*)::int as n from webhook_deliveries where status = 'pending'`)
  return row?.n ?? 0
}
