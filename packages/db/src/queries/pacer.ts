import { type ReputationStage, weightAtStage } from '@fairlane/core'
import type {
  BacklogTenant,
  PendingBulkRow,
  PendingCursor,
  ReceiverBacklogStore,
  ReleasedMessage,
  ReleaseQuota,
} from '@fairlane/core/pacing'
import { type SQL, sql } from 'drizzle-orm'
import type { Database, Executor, Transaction } from '../client'
import { messageClaims, messageEvents } from '../schema'
import { noFlushWait } from './no-flush-wait'

/** The tenants (alias `t`) whose bulk lane runs: all but those the reputation guardrail paused. */
export const notPaused = sql`t.reputation_stage <> 'pause'`

/** `releaseByReceiver`'s store in PostgreSQL (MX mode); the claim commits before it resolves. */
export function createReceiverBacklogStore(db: Database): ReceiverBacklogStore {
  return {
    findBacklog: (input) => findBulkBacklog(db, input),
    pagePending: (input) => pagePendingBulk(db, input),
    claimByIds: (rows) => db.transaction((tx) => claimBulkByIds(tx, rows)),
    giveBack: (released) => returnBulkRelease(db, released),
  }
}

/**
 * A tenant's oldest pending bulk rows after the cursor, in (created_at, id) order — the backlog
 * index's own order, so a page is an index range scan — each with its recipient's domain.
 */
export async function pagePendingBulk(
  db: Executor,
  input: { tenantId: string; after: PendingCursor | null; limit: number },
): Promise<PendingBulkRow[]> {
  if (!(Number.isInteger(input.limit) && input.limit > 0)) {
    throw new RangeError(`limit must be an integer > 0, got ${input.limit}`)
  }
  const after = input.after
    ? sql`and (m.created_at, m.id) > (${input.after.createdAt}::timestamptz, ${input.after.messageId}::uuid)`
    : sql``
  const rows = await db.execute<{ id: string; tenant_id: string; domain: string; created_at: string }>(sql`
    select m.id, m.tenant_id, lower(split_part(m.to_address, '@', 2)) as domain,
      to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
    from messages m
    where m.tenant_id = ${input.tenantId}::uuid and m.status = 'pending' and m.lane = 'bulk' ${after}
      and not exists (select 1 from ${messageClaims} c where c.message_id = m.id)
    order by m.created_at, m.id
    limit ${input.limit}`)
  return rows.map((row) => ({
    messageId: row.id,
    tenantId: row.tenant_id,
    domain: row.domain,
    createdAt: row.created_at,
  }))
}

/**
 * The receiver pacer's claim: exactly these rows, those still pending bulk rows of their tenant not
 * yet handed to a job, are released (as `claimBulkRelease`: a release row each, read as `queued`)
 * with their `queued` event in the same statement. SKIP
 * LOCKED passes rows another claimer holds; rows gone or taken are not returned.
 */
export async function claimBulkByIds(
  tx: Transaction,
  rows: ReadonlyArray<{ tenantId: string; messageId: string }>,
): Promise<ReleasedMessage[]> {
  if (rows.length === 0) return []
  const values = sql.join(
    rows.map((row) => sql`(${row.tenantId}::uuid, ${row.messageId}::uuid)`),
    sql`, `,
  )
  const claimed = await tx.execute<{ id: string; tenant_id: string; generation: number }>(sql`
    with picked as (
      select m.id, m.tenant_id, m.generation, m.attempts from messages m
      join (values ${values}) as wanted(tenant_id, id) on m.id = wanted.id and m.tenant_id = wanted.tenant_id
      where m.status = 'pending' and m.lane = 'bulk'
        and not exists (select 1 from ${messageClaims} c where c.message_id = m.id)
      for no key update of m skip locked
    ), released as (
      insert into ${messageClaims} (message_id, lock_token, locked_until, attempts)
      select id, null, now(), attempts from picked
      on conflict (message_id) do nothing
      returning message_id
    ), queued as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select p.tenant_id, p.id, 'queued', '{"lane":"bulk"}'::jsonb
      from picked p join released r on r.message_id = p.id
    )
    select p.id, p.tenant_id, p.generation from picked p join released r on r.message_id = p.id`)
  return claimed.map((row) => ({ messageId: row.id, tenantId: row.tenant_id, generation: row.generation }))
}

/**
 * Every tenant with pending bulk mail, found by a loose index scan (one index probe per tenant on
 * the partial backlog index), so the cost follows the number of tenants waiting, not the millions
 * of rows they wait with.
 */
export async function findBulkBacklog(db: Executor, input: { cap: number }): Promise<BacklogTenant[]> {
  const rows = await db.execute<{
    tenant_id: string
    rate_per_sec: number
    burst: number
    weight: number
    stage: ReputationStage
    backlog: number
  }>(sql`
    with recursive waiting(tenant_id) as (
      -- Ordered by the backlog index's whole key, which only that index yields: ordered by tenant_id
      -- alone, the planner could walk (tenant_id, idempotency_key) and filter, reading every sent row
      -- of a tenant (its whole history) on the way to the next tenant with a backlog.
      (select tenant_id from messages
        where status = 'pending' and lane = 'bulk'
        order by tenant_id, created_at, id limit 1)
      union all
      select (select m.tenant_id from messages m
               where m.status = 'pending' and m.lane = 'bulk' and m.tenant_id > w.tenant_id
               order by m.tenant_id, m.created_at, m.id limit 1)
      from waiting w where w.tenant_id is not null
    )
    select w.tenant_id, t.rate_per_sec, t.burst, t.weight, t.reputation_stage as stage,
      (select count(*) from (
        select 1 from messages m
        where m.tenant_id = w.tenant_id and m.status = 'pending' and m.lane = 'bulk'
        -- The backlog index's order: without it a table that is mostly backlog made a sequential scan
        -- with a LIMIT look cheaper to the planner, and each tick read other tenants' rows until it
        -- found this one's (about 1,800 rows per email sent next to a 20,000-row backlog).
        order by m.created_at, m.id
        limit ${input.cap}) capped)::int as backlog
    from waiting w join tenants t on t.id = w.tenant_id
    where w.tenant_id is not null and ${notPaused}`)
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    ratePerSec: row.rate_per_sec,
    burst: row.burst,
    weight: weightAtStage(row.weight, row.stage),
    backlog: row.backlog,
  }))
}

/**
 * The pacer's claim: for each tenant its oldest `count` pending bulk rows not yet handed to a job
 * are released — a row each in `message_claims` without a lock token, read as `queued`; the wide
 * `messages` row is not written — each with its `queued` event, in the same statement. The pacer
 * commits it before adding the jobs (no Redis call inside a transaction): a failed add returns the
 * rows (`returnBulkRelease`), a pacer that dies in between leaves them to the sweeper, which
 * publishes released rows that have no job once their release is old. SKIP LOCKED
 * keeps a second pacer off the same rows. One statement: on its own (outside a transaction) it
 * commits as it returns, in one round trip, without waiting for the WAL flush (`noFlushWait`: a
 * release lost in a PostgreSQL crash leaves its row pending, which the pacer releases again).
 */
export async function claimBulkRelease(
  db: Executor,
  quotas: readonly ReleaseQuota[],
): Promise<ReleasedMessage[]> {
  const statement = bulkReleaseClaim(quotas)
  if (statement === null) return []
  const rows = await db.execute<{ id: string; tenant_id: string; generation: number; created_at: string }>(
    statement,
  )
  return rows.map((row) => ({
    messageId: row.id,
    tenantId: row.tenant_id,
    generation: row.generation,
    createdAt: row.created_at,
  }))
}

/**
 * `claimBulkRelease`'s statement (null when no quota asks for a row); exported for the test that
 * EXPLAINs it. Its cost follows the rows it claims, not the tenants waiting: one probe of the
 * backlog index per quota (a LATERAL with LIMIT, reading that tenant's oldest entries only), then
 * primary-key probes. The quotas travel as two arrays, so the text is the same whatever their
 * number: postgres.js prepares it once per connection and a tick does not plan it again.
 */
export function bulkReleaseClaim(quotas: readonly ReleaseQuota[]): SQL | null {
  const wanted = quotas.filter((quota) => quota.count > 0)
  if (wanted.length === 0) return null
  for (const quota of wanted) {
    if (!Number.isFinite(quota.count))
      throw new RangeError(`a quota's count must be finite, got ${quota.count}`)
  }
  const tenantIds = pgArray(wanted.map((quota) => quota.tenantId))
  const counts = pgArray(wanted.map((quota) => String(Math.floor(quota.count))))
  // No cursor: before every row (no created_at is -infinity, no uuid below the nil one).
  const afterAt = pgArray(wanted.map((quota) => quota.after?.createdAt ?? '-infinity'))
  const afterId = pgArray(
    wanted.map((quota) => quota.after?.messageId ?? '00000000-0000-0000-0000-000000000000'),
  )
  return sql`
    with ${noFlushWait}, picked as (
      select picked.*
      from no_flush_wait,
        unnest(${tenantIds}::uuid[], ${counts}::int[], ${afterAt}::timestamptz[], ${afterId}::uuid[])
        as quota(tenant_id, n, after_at, after_id)
      cross join lateral (
        -- The row comparison is an index condition: the scan starts after the cursor. Rows already
        -- handed to a job (a release or a claim in message_claims) are passed over.
        select m.id, m.tenant_id, m.generation, m.created_at, m.attempts from messages m
        where m.tenant_id = quota.tenant_id and m.status = 'pending' and m.lane = 'bulk'
          and (m.created_at, m.id) > (quota.after_at, quota.after_id)
          and not exists (select 1 from ${messageClaims} c where c.message_id = m.id)
          -- A tenant the reputation guardrail paused has nothing released, whatever the plan asked:
          -- a primary-key probe per quota (a join here became a scan of every tenant).
          and not exists (select 1 from tenants t where t.id = quota.tenant_id and t.reputation_stage = 'pause')
        order by m.created_at, m.id
        limit quota.n
        for no key update of m skip locked
      ) picked
    ), released as (
      -- The release: a row without a lock token, the wide messages row left as it is (still pending).
      insert into ${messageClaims} (message_id, lock_token, locked_until, attempts)
      select id, null, now(), attempts from picked
      on conflict (message_id) do nothing
      returning message_id
    ), queued as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select p.tenant_id, p.id, 'queued', '{"lane":"bulk"}'::jsonb
      from picked p join released r on r.message_id = p.id
    )
    select p.id, p.tenant_id, p.generation,
      to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
    from picked p join released r on r.message_id = p.id
    order by p.tenant_id, p.created_at, p.id`
}

/** A PostgreSQL array literal of values that need no quoting (uuids, numbers, timestamps as printed). */
function pgArray(values: readonly string[]): string {
  for (const value of values) {
    if (!/^[0-9A-Za-z:.+-]+$/.test(value))
      throw new RangeError(`not an array element this claim takes: ${value}`)
  }
  return `{${values.join(',')}}`
}

/**
 * Puts released rows whose jobs could not be added back in the backlog, for a later tick: their
 * releases end. Only rows still released (no claim took the release over) under the generation they
 * were released with: one a worker already claimed (its job reached Redis after all) is left alone.
 * Returns how many went back. The release's `queued` event goes with it (for such a row it is still
 * the message's latest event): no job came of it, and the next release writes its own. Their tenants
 * are stamped in the active set (the messages row did not change, so its trigger did not), which also
 * sends the pacer's claim back to each tenant's oldest row.
 */
export async function returnBulkRelease(
  db: Executor,
  released: ReadonlyArray<ReleasedMessage>,
): Promise<number> {
  if (released.length === 0) return 0
  const values = sql.join(
    released.map((row) => sql`(${row.messageId}::uuid, ${row.generation}::int)`),
    sql`, `,
  )
  return db.transaction(async (tx) => {
    // Locked in a statement of their own first: a claim being made (a worker that got the job after
    // all) holds its row's lock until it commits, and the next statement's snapshot sees its claim,
    // which keeps that message with its worker.
    await tx.execute(sql`
      select 1 from messages m
      where m.id in (select released.id from (values ${values}) as released(id, generation))
      for no key update`)
    const rows = await tx.execute<{ id: string; tenant_id: string }>(sql`
      with returned as (
        delete from ${messageClaims} c
        using messages m, (values ${values}) as released(id, generation)
        where c.message_id = released.id and c.lock_token is null
          and m.id = c.message_id and m.generation = released.generation
          and m.status = 'pending' and m.lane = 'bulk'
        returning m.id, m.tenant_id
      ), unqueued as (
        delete from ${messageEvents} e using returned r
        where e.id = (
          select max(x.id) from ${messageEvents} x where x.tenant_id = r.tenant_id and x.message_id = r.id)
          and e.type = 'queued'
      )
      select id, tenant_id from returned`)
    const tenants = [...new Set(rows.map((row) => row.tenant_id))]
    if (tenants.length > 0) {
      await tx.execute(sql`select bulk_backlog_stamp(${pgArray(tenants)}::uuid[])`)
    }
    return rows.length
  })
}

/** A tenant's bucket plan, read by the lane workers' plan cache. */
export async function findTenantPlan(
  db: Executor,
  tenantId: string,
): Promise<{ ratePerSec: number; burst: number; weight: number; bulkPaused: boolean } | undefined> {
  const [row] = await db.execute<{
    rate_per_sec: number
    burst: number
    weight: number
    paused: boolean
  }>(sql`
    select rate_per_sec, burst, weight, reputation_stage = 'pause' as paused from tenants where id = ${tenantId}`)
  return row
    ? { ratePerSec: row.rate_per_sec, burst: row.burst, weight: row.weight, bulkPaused: row.paused }
    : undefined
}
