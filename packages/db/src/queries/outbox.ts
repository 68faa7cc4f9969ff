import { type Lane, MESSAGE_PUBLISH_TOPIC, type MessagePublishEvent, OUTBOX_CHANNEL } from '@fairlane/core'
import { inArray, sql } from 'drizzle-orm'
import type { Executor, Transaction } from '../client'
import { messageEvents, outbox } from '../schema'

export interface OutboxEntry {
  id: number
  tenantId: string | null
  topic: string
  payload: Record<string, unknown>
  attempts: number
}

/** A parked row that is due again: `parkedUntil` (ms since the epoch) is its place in its tenant's line. */
export interface ParkedOutboxEntry extends OutboxEntry {
  parkKey: string
  parkedUntilMs: number
}

/** One pass's fresh rows, and the tenants some of whose fresh rows were left for a later pass. */
export interface FreshOutboxClaim {
  rows: OutboxEntry[]
  /** Tenants with more unpublished, unparked rows than this claim took: their later rows wait. */
  cutTenants: Set<string>
}

/**
 * The relay's claim, fair across tenants: each tenant with unpublished, unparked rows gets its oldest
 * rows in turn (every tenant's first row, then every tenant's second …), at most its share of the
 * batch (`limit` / tenants, rounded up; never more than `perTenant`), so one tenant's thousands of rows never push another
 * tenant's row out of the pass. One statement: a loose index scan walks the tenants on
 * `outbox_unpublished_tenant_idx` (one probe per tenant, whatever the backlog), and a LATERAL per
 * tenant takes its rows from the same index, locked for the rest of the transaction. SKIP LOCKED lets
 * several relays work side by side, each on rows the others do not hold. Each tenant's lateral reads
 * one row past its share; that row is not returned, it only says the tenant was cut (its later rows
 * wait for the next pass). `skipIds` leaves out rows this relay could not parse (a newer producer's
 * payload, say) so they cannot fill every batch; another relay may still take them. Rows without a
 * tenant are never claimed: `insertMessagePublishEvent` always names one.
 */
export async function claimUnpublishedOutbox(
  tx: Transaction,
  input: { topics: readonly string[]; limit: number; perTenant?: number; skipIds?: readonly number[] },
): Promise<FreshOutboxClaim> {
  const skipIds = `{${(input.skipIds ?? []).join(',')}}`
  const topics = sql.join(
    input.topics.map((topic) => sql`${topic}`),
    sql`, `,
  )
  // The walk stops after `limit` tenants: with more than that waiting at once, the first `limit` (by
  // id) go this pass and the rest once those have published or parked and left the index.
  const rows = await tx.execute<{
    id: string | number
    tenant_id: string
    topic: string
    payload: Record<string, unknown>
    attempts: number
    turn: number
    held: number
  }>(sql`
    with recursive tenants(tenant_id, n) as (
      (select o.tenant_id, 1 from ${outbox} o
       where o.published_at is null and o.parked_until is null and o.tenant_id is not null
       order by o.tenant_id limit 1)
      union all
      select (select o.tenant_id from ${outbox} o
              where o.published_at is null and o.parked_until is null and o.tenant_id > t.tenant_id
              order by o.tenant_id limit 1), t.n + 1
      from tenants t where t.tenant_id is not null and t.n < ${input.limit}::int
    ),
    walked as (select tenant_id from tenants where tenant_id is not null),
    share as (
      select least(${input.perTenant ?? input.limit}::int, ceil(${input.limit}::float8 / greatest(1, count(*))))::int as rows
      from walked
    ),
    claimed as (
      select c.* from walked t
      cross join lateral (
        select o.id, o.tenant_id, o.topic, o.payload, o.attempts from ${outbox} o
        where o.tenant_id = t.tenant_id and o.published_at is null and o.parked_until is null
          and o.topic in (${topics}) and o.id <> all(${skipIds}::bigint[])
        order by o.id
        limit (select rows + 1 from share)
        for update skip locked
      ) c
    ),
    turns as (
      select claimed.*, row_number() over (partition by tenant_id order by id)::int as turn,
        count(*) over (partition by tenant_id)::int as held
      from claimed
    )
    select id, tenant_id, topic, payload, attempts, turn, held from turns
    where turn <= (select rows from share)
    order by turn, id
    limit ${input.limit}::int`)
  // `held`: the rows the tenant's lateral locked; more than it returned means rows were left behind.
  const taken = new Map<string, number>()
  for (const row of rows) taken.set(row.tenant_id, (taken.get(row.tenant_id) ?? 0) + 1)
  const cutTenants = new Set(
    rows.filter((row) => row.held > (taken.get(row.tenant_id) ?? 0)).map((row) => row.tenant_id),
  )
  return {
    rows: rows.map((row) => ({
      id: Number(row.id),
      tenantId: row.tenant_id,
      topic: row.topic,
      payload: row.payload,
      attempts: row.attempts,
    })),
    cutTenants,
  }
}

/** One pass's due parked rows, and the tenant lanes some of whose due parked rows were left behind. */
export interface ParkedOutboxClaim {
  rows: ParkedOutboxEntry[]
  /** Park keys with more due parked rows than this claim took: their fresh rows must not pass them. */
  cutKeys: Set<string>
}

/**
 * The relay's other claim: parked rows whose turn has come, in their tenants' order (`parked_until`
 * then id), locked like the unpublished claim, at most `perKey` of each tenant lane: a tenant never
 * takes more than its lane slots in one pass, so reading more of its rows (a flood's hundreds, due
 * while its slots are full) would only lock them in vain. Tenant lanes are walked on
 * `outbox_parked_key_idx` (one probe each) and each one's due rows taken by a LATERAL, reading one row
 * past `perKey` to tell a cut. `skipKeys` leaves out tenants the relay already knows cannot take more
 * yet (lane slots full, next token later), so their rows are not even read.
 */
export async function claimDueParkedOutbox(
  tx: Transaction,
  input: { topics: readonly string[]; limit: number; perKey: number; skipKeys?: readonly string[] },
): Promise<ParkedOutboxClaim> {
  const topics = sql.join(
    input.topics.map((topic) => sql`${topic}`),
    sql`, `,
  )
  const skipKeys = sql.join(
    ['', ...(input.skipKeys ?? [])].map((key) => sql`${key}`),
    sql`, `,
  )
  const rows = await tx.execute<{
    id: string | number
    tenant_id: string | null
    topic: string
    payload: Record<string, unknown>
    attempts: number
    park_key: string
    parked_until_ms: number
    held: number
  }>(sql`
    with recursive lanes(park_key, n) as (
      (select o.park_key, 1 from ${outbox} o
       where o.published_at is null and o.parked_until is not null and o.park_key is not null
       order by o.park_key limit 1)
      union all
      select (select o.park_key from ${outbox} o
              where o.published_at is null and o.parked_until is not null and o.park_key > l.park_key
              order by o.park_key limit 1), l.n + 1
      from lanes l where l.park_key is not null and l.n < ${input.limit}::int
    ),
    claimed as (
      select c.* from lanes l
      cross join lateral (
        select o.id, o.tenant_id, o.topic, o.payload, o.attempts, o.park_key, o.parked_until from ${outbox} o
        where o.park_key = l.park_key and o.published_at is null and o.parked_until is not null
          and o.parked_until <= now() and o.topic in (${topics})
        order by o.parked_until, o.id
        limit ${input.perKey + 1}::int
        for update skip locked
      ) c
      where l.park_key is not null and l.park_key not in (${skipKeys})
    ),
    turns as (
      select claimed.*, row_number() over (partition by park_key order by parked_until, id)::int as turn,
        count(*) over (partition by park_key)::int as held
      from claimed
    )
    select id, tenant_id, topic, payload, attempts, park_key, held,
      (extract(epoch from parked_until) * 1000)::float8 as parked_until_ms
    from turns where turn <= ${input.perKey}::int
    order by parked_until, id
    limit ${input.limit}::int`)
  const taken = new Map<string, number>()
  for (const row of rows) taken.set(row.park_key, (taken.get(row.park_key) ?? 0) + 1)
  return {
    rows: rows.map((row) => ({
      id: Number(row.id),
      tenantId: row.tenant_id,
      topic: row.topic,
      payload: row.payload,
      attempts: row.attempts,
      parkKey: row.park_key,
      parkedUntilMs: Number(row.parked_until_ms),
    })),
    cutKeys: new Set(
      rows.filter((row) => row.held > (taken.get(row.park_key) ?? 0)).map((row) => row.park_key),
    ),
  }
}

/** An outbox row of a message, with the message it names (as the relay parsed its payload). */
export interface MessageOutboxRow {
  id: number
  tenantId: string
  messageId: string
}

/**
 * Parks rows (one statement for the batch): each stays unpublished with its tenant's key and the
 * moment (ms since the epoch, the Redis clock's) it may be claimed again. Each parked message gets
 * its `deferred` event (`{ untilMs }`) in the same statement: only fresh rows are parked, so once.
 */
export async function parkOutboxRows(
  tx: Transaction,
  rows: readonly (MessageOutboxRow & { parkKey: string; parkedUntilMs: number })[],
): Promise<void> {
  if (rows.length === 0) return
  const parked = JSON.stringify(
    rows.map((row) => ({
      id: row.id,
      tenant_id: row.tenantId,
      message_id: row.messageId,
      park_key: row.parkKey,
      until_ms: row.parkedUntilMs,
    })),
  )
  await tx.execute(sql`
    with parked as (
      update ${outbox} o
      set park_key = p.park_key, parked_until = to_timestamp(p.until_ms / 1000.0)
      from jsonb_to_recordset(${parked}::jsonb) as p(id bigint, tenant_id uuid, message_id uuid, park_key text, until_ms float8)
      where o.id = p.id
      returning p.id, p.tenant_id, p.message_id, p.until_ms
    )
    insert into ${messageEvents} (tenant_id, message_id, type, detail)
    select tenant_id, message_id, 'deferred', jsonb_build_object('untilMs', round(until_ms)::bigint)
    from parked order by id`)
}

/**
 * Milliseconds until the next parked row that is not due yet comes due; undefined with none. The
 * floor at zero is taken here, not with SQL's `greatest`, which ignores a NULL: with no parked row it
 * answered 0, and the relay, told a row was due, passed again every millisecond.
 */
export async function nextParkedDueInMs(db: Executor): Promise<number | undefined> {
  const [row] = await db.execute<{ in_ms: number | null }>(sql`
    select (extract(epoch from (min(parked_until) - now())) * 1000)::float8 as in_ms
    from ${outbox}
    where published_at is null and parked_until > now()`)
  return row?.in_ms === null || row?.in_ms === undefined ? undefined : Math.max(0, Number(row.in_ms))
}

/**
 * How long the longest-waiting row a relay could take now has waited, in ms: the oldest unpublished
 * unparked row since it was written, or the earliest due parked row since its turn came; undefined
 * when there is none. Two probes, each the first entry of a partial index (`outbox_unpublished_idx`,
 * `outbox_parked_idx`): a backstop relay asks it every poll.
 */
export async function oldestWaitingOutboxMs(db: Executor): Promise<number | undefined> {
  const [row] = await db.execute<{ waited_ms: number | null }>(sql`
    select (extract(epoch from (now() - least(
      (select created_at from ${outbox}
       where published_at is null and parked_until is null order by id limit 1),
      (select parked_until from ${outbox}
       where published_at is null and parked_until is not null and parked_until <= now()
       order by parked_until, id limit 1)
    ))) * 1000)::float8 as waited_ms`)
  return row?.waited_ms === null || row?.waited_ms === undefined ? undefined : Number(row.waited_ms)
}

/**
 * Marks the rows published and writes each message's `queued` event (`{ lane }`: a job exists now),
 * in one statement, inside the relay's transaction: rolled back together if the pass fails. The
 * event's time is the statement's clock, not the transaction's start (`now()`): a relay transaction
 * that began before the accept committed would otherwise date `queued` before `accepted`.
 */
export async function markOutboxPublished(
  tx: Transaction,
  rows: readonly (MessageOutboxRow & { lane: Lane })[],
): Promise<void> {
  if (rows.length === 0) return
  const published = JSON.stringify(
    rows.map((row) => ({ id: row.id, tenant_id: row.tenantId, message_id: row.messageId, lane: row.lane })),
  )
  await tx.execute(sql`
    with published as (
      update ${outbox} o set published_at = now()
      from jsonb_to_recordset(${published}::jsonb) as p(id bigint, tenant_id uuid, message_id uuid, lane text)
      where o.id = p.id
      returning p.id, p.tenant_id, p.message_id, p.lane
    )
    insert into ${messageEvents} (tenant_id, message_id, type, detail, at)
    select tenant_id, message_id, 'queued', jsonb_build_object('lane', lane), clock_timestamp()
    from published order by id`)
}

/** Counts a failed publish (Redis away, unparseable payload): visible to operators, never a reason to drop. */
export async function countOutboxAttempt(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .update(outbox)
    .set({ attempts: sql`${outbox.attempts} + 1` })
    .where(inArray(outbox.id, [...ids]))
}

/** "Put this message on its lane", written in the caller's transaction with the row it describes. */
export async function insertMessagePublishEvent(db: Executor, event: MessagePublishEvent): Promise<void> {
  await db
    .insert(outbox)
    .values({ tenantId: event.tenantId, topic: MESSAGE_PUBLISH_TOPIC, payload: { ...event } })
}

/** Wakes the relays; inside a transaction PostgreSQL delivers it at COMMIT, never for a rolled-back row. */
export async function notifyOutbox(db: Executor): Promise<void> {
  await db.execute(sql`select pg_notify(${OUTBOX_CHANNEL}, '')`)
}
