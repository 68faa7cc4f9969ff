import { type Lane, MESSAGE_PUBLISH_TOPIC } from '@fairlane/core'
import type { AcceptedSend, StrandedMessage, SweepStore, SweepTransaction } from '@fairlane/core/recovery'
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Database, Executor, Transaction } from '../client'
import { messageClaims, messageEvents, messages, outbox } from '../schema'
import { claimed, endClaimStatement } from './message-claims'
import { insertMessagePublishEvent, notifyOutbox } from './outbox'

/** `sweepStrandedMessages`'s store in PostgreSQL. */
export function createSweepStore(db: Database): SweepStore {
  return {
    findStranded: (input) => findStrandedMessages(db, input),
    transaction: (work) => db.transaction((tx) => work(sweepTransaction(tx))),
  }
}

function sweepTransaction(tx: Transaction): SweepTransaction {
  return {
    tryTakeSweepLock: () => tryTakeSweeperLock(tx),
    findStillStranded: ({ queuedForMs, ids }) =>
      findStrandedMessages(tx, { queuedForMs, limit: ids.length, ids, forUpdate: true }),
    republish: (message) => republishMessage(tx, { ...message, messageId: message.id }),
    recordAcceptedSend: (message, accepted) =>
      recordAcceptedSendBySweeper(tx, { ...message, messageId: message.id, ...accepted }),
    notifyRelay: () => notifyOutbox(tx),
  }
}

/**
 * Transaction-level advisory lock key for the sweeper ("fl-sweep" in ASCII, truncated). Taken with
 * pg_try_advisory_xact_lock, so it is released by COMMIT/ROLLBACK or a dead connection on its own:
 * a session lock would outlive a pass whose pooled connection is reused, or a crashed worker's pass.
 */
const SWEEPER_LOCK_KEY = 0x66_6c_2d_73_77_65

/** True when this transaction is the one sweeper pass running across all worker processes. */
export async function tryTakeSweeperLock(tx: Transaction): Promise<boolean> {
  const [row] = await tx.execute<{ locked: boolean }>(
    sql`select pg_try_advisory_xact_lock(${SWEEPER_LOCK_KEY}) as locked`,
  )
  return row?.locked === true
}

/**
 * Messages that should be moving but may have no job: `queued` for longer than `queuedForMs` with no
 * claim, released (a bulk release, read as `queued`) longer ago than that, or under an expired claim
 * (read as `sending`). Rows with an unpublished outbox row are left out (the relay will
 * publish them; Redis may just be away). Whether the job is really gone is the caller's question to
 * Redis, asked with no transaction open; `ids` + `forUpdate` then re-reads the answers inside the
 * deciding transaction, locked FOR UPDATE SKIP LOCKED so a claim or a replay racing with the sweeper
 * waits for its decision, and only rows still stranded come back.
 */
export async function findStrandedMessages(
  db: Executor,
  input: { queuedForMs: number; limit: number; ids?: readonly string[]; forUpdate?: boolean },
): Promise<StrandedMessage[]> {
  if (input.ids?.length === 0) return []
  const onlyIds = input.ids
    ? sql`and m.id in (${sql.join(
        input.ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`
    : sql``
  const lock = input.forUpdate ? sql`for no key update of m skip locked` : sql``
  const queuedLongAgo = sql`coalesce(m.queued_at, m.created_at) < now() - ${Math.ceil(input.queuedForMs)}::int * interval '1 millisecond'`
  // Each kind read through its own index: queued rows through the partial index on `queued`, expired
  // claims through `message_claims`' own. One condition over both (a status list with `pending` in
  // it, joined to the claims) read every pending row of a backlog each pass: 1,000,000 rows beside a
  // big campaign waiting.
  const candidates = sql`
    select m.id, m.tenant_id, m.lane, m.generation, 'queued' as status
    from ${messages} m
    where m.status = 'queued' and ${queuedLongAgo}
      and not exists (select 1 from ${messageClaims} c where c.message_id = m.id)
      ${onlyIds}
    union all
    select m.id, m.tenant_id, m.lane, m.generation,
      case when c.lock_token is null then 'queued' else 'sending' end as status
    from ${messageClaims} c join ${messages} m on m.id = c.message_id
    where c.locked_until < now() and m.status in ('queued', 'pending')
      -- A release (no token) is late once it is older than queued rows may be; a claim once it expired.
      and (c.lock_token is not null or c.locked_until < now() - ${Math.ceil(input.queuedForMs)}::int * interval '1 millisecond')
      ${onlyIds}`
  const rows = await db.execute<{
    id: string
    tenant_id: string
    lane: Lane
    generation: number
    status: 'queued' | 'sending'
  }>(sql`
    select m.id, m.tenant_id, m.lane, m.generation, found.status
    from (${candidates}) found
    join ${messages} m on m.id = found.id
    where not exists (
        select 1 from ${outbox} o
        where o.published_at is null
          and o.topic = ${MESSAGE_PUBLISH_TOPIC}
          and o.payload->>'messageId' = m.id::text
      )
    order by m.id
    limit ${input.limit}
    ${lock}`)
  return rows.map((row) => ({
    id: row.id,
    tenantId: row.tenant_id,
    lane: row.lane,
    generation: row.generation,
    status: row.status,
  }))
}

/**
 * Puts a stranded message back on its lane under a new generation: its job id changes, so BullMQ
 * cannot swallow the new job because a failed or completed one is retained under the old id. The
 * outbox row is written in the same transaction; the relay publishes it. False when the row moved on
 * (another generation, no longer queued, or claimed by a live attempt) since it was read.
 */
export async function republishMessage(
  tx: Transaction,
  input: { tenantId: string; messageId: string; generation: number },
): Promise<boolean> {
  // Its expired claim (a dead worker's) or its release ends; a live claim means an attempt is under
  // way: left alone.
  await tx.execute(sql`
    delete from ${messageClaims} c
    where c.message_id = ${input.messageId} and (c.lock_token is null or c.locked_until < now())`)
  const [row] = await tx
    .update(messages)
    .set({
      status: 'queued',
      generation: sql`${messages.generation} + 1`,
      queuedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(messages.id, input.messageId),
        eq(messages.tenantId, input.tenantId),
        eq(messages.generation, input.generation),
        inArray(messages.status, ['queued', 'pending']),
        sql`not ${claimed()}`,
      ),
    )
    .returning({ lane: messages.lane, generation: messages.generation })
  if (!row) return false
  await insertMessagePublishEvent(tx, {
    v: 1,
    messageId: input.messageId,
    tenantId: input.tenantId,
    lane: row.lane,
    generation: row.generation,
  })
  return true
}

/**
 * Marks `sent` a message the server accepted whose job failed before recording it: only while it is
 * still held by the claim the server accepted it with, at the generation the job belonged to.
 * Its `sent` event carries the server's reply when the job kept it, and `recordedBy: "sweeper"`: the
 * send was recorded late, by the sweeper, not by the attempt that made it. False when the row moved on.
 */
export async function recordAcceptedSendBySweeper(
  tx: Executor,
  input: { tenantId: string; messageId: string; generation: number } & AcceptedSend,
): Promise<boolean> {
  const [row] = await tx.execute<{ recorded: number }>(sql`
    with gone as (${endClaimStatement(input, sql`and owner.generation = ${input.generation}`)}), sent as (
      update ${messages} m
      set status = 'sent', sent_at = now(), attempts = gone.attempts, updated_at = now()
      from gone
      where m.id = gone.message_id
      returning m.id, m.tenant_id
    ), event as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select tenant_id, id, 'sent', jsonb_strip_nulls(jsonb_build_object(
        'response', ${input.response ?? null}::text, 'recordedBy', 'sweeper'))
      from sent
    )
    select count(*)::int as recorded from sent`)
  return (row?.recorded ?? 0) > 0
}
