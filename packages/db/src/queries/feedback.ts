import type {
  FeedbackMessage,
  FeedbackStore,
  FeedbackTransaction,
  MessageRef,
  MessageStatus,
  SoftBounceRecord,
} from '@fairlane/core'
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { addressBounces, contacts, messages, sendingDomains, suppressions } from '../schema'
import { recordMessageEvents } from './message-events'

/**
 * The inbound server's store: what a bounce or complaint report changes, for `applyFeedback`.
 * Every method of a transaction runs on that transaction; nothing here reads or writes Redis.
 */
export function createFeedbackStore(db: Database): FeedbackStore {
  return {
    transaction: (work) => db.transaction((tx) => work(feedbackTransaction(tx))),
    settleStatuses: (refs) => settleFeedbackStatuses(db, refs),
    findUnsettled: (query) => findUnsettledFeedback(db, query),
  }
}

function feedbackTransaction(tx: Executor): FeedbackTransaction {
  return {
    findMessage: (query) => lockMessageForFeedback(tx, query),
    tenantsOfReturnPathHost: (query) => tenantsOfReturnPathHost(tx, query),
    recordEvent: async (event) => (await recordMessageEvents(tx, [event])) === 1,
    setStatus: (input) => setFeedbackStatus(tx, input),
    suppress: (input) => suppressForFeedback(tx, input),
    unsubscribeContact: (input) => unsubscribeContactByEmail(tx, input),
    lockSoftBounces: (input) => lockSoftBounces(tx, input),
    deliveredSince: (input) => deliveredSince(tx, input),
    saveSoftBounces: (input) => saveSoftBounces(tx, input),
  }
}

/**
 * The message a verified return path names, locked FOR UPDATE so two copies of one report (or a
 * report and the settle loop) take turns. By id alone, the one query here without a tenant: the
 * return path carries only the message's id, and `applyFeedback` checks the tenant against it.
 */
export async function lockMessageForFeedback(
  db: Executor,
  query: { messageId: string },
): Promise<FeedbackMessage | null> {
  const [row] = await db
    .select({
      id: messages.id,
      tenantId: messages.tenantId,
      toAddress: messages.toAddress,
      status: messages.status,
      fromAddress: messages.fromAddress,
    })
    .from(messages)
    .where(eq(messages.id, query.messageId))
    .for('update')
  return row ?? null
}

/** Tenants with a sending domain whose return-path host `<label>.<name>` is `host` (lowercase). */
export async function tenantsOfReturnPathHost(db: Executor, query: { host: string }): Promise<string[]> {
  const dot = query.host.indexOf('.')
  if (dot <= 0) return []
  const rows = await db
    .select({ tenantId: sendingDomains.tenantId })
    .from(sendingDomains)
    .where(
      and(
        eq(sendingDomains.name, query.host.slice(dot + 1)),
        eq(sendingDomains.returnPathLabel, query.host.slice(0, dot)),
      ),
    )
  return [...new Set(rows.map((row) => row.tenantId))]
}

async function setFeedbackStatus(
  db: Executor,
  input: {
    tenantId: string
    messageId: string
    status: 'bounced' | 'complained'
    from: readonly MessageStatus[]
  },
): Promise<boolean> {
  const rows = await db
    .update(messages)
    .set({ status: input.status, updatedAt: sql`now()` })
    .where(
      and(
        eq(messages.id, input.messageId),
        eq(messages.tenantId, input.tenantId),
        inArray(messages.status, [...input.from]),
      ),
    )
    .returning({ id: messages.id })
  return rows.length === 1
}

/**
 * One suppression on every lane with its reason and detail. Kept when the address is already
 * suppressed on every lane (the first reason stands); an unsubscribe's marketing-only entry is
 * widened to this one, as `addSuppressionRows` widens.
 */
async function suppressForFeedback(
  db: Executor,
  input: {
    tenantId: string
    email: string
    reason: 'hard-bounce' | 'complaint'
    detail: string
    messageId: string
  },
): Promise<void> {
  await db
    .insert(suppressions)
    .values({
      tenantId: input.tenantId,
      email: input.email.toLowerCase(),
      reason: input.reason,
      scope: 'all',
      messageId: input.messageId,
      detail: input.detail,
    })
    .onConflictDoUpdate({
      target: [suppressions.tenantId, suppressions.email],
      set: {
        reason: sql`excluded.reason`,
        scope: sql`excluded.scope`,
        messageId: sql`excluded.message_id`,
        detail: sql`excluded.detail`,
        createdAt: sql`excluded.created_at`,
      },
      setWhere: sql`${suppressions.scope} = 'marketing'`,
    })
}

/** Unsubscribes the tenant's contact with this address (the first date stays); true if it was subscribed. */
async function unsubscribeContactByEmail(
  db: Executor,
  input: { tenantId: string; email: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(contacts)
    .set({ unsubscribedAt: input.now, updatedAt: input.now })
    .where(
      and(
        eq(contacts.tenantId, input.tenantId),
        eq(contacts.email, input.email.toLowerCase()),
        sql`${contacts.unsubscribedAt} is null`,
      ),
    )
    .returning({ id: contacts.id })
  return rows.length > 0
}

/**
 * The address's soft-bounce row, locked. Created empty first when missing (soft count 0), so two
 * first bounces of one address serialize on the row instead of both inserting.
 */
async function lockSoftBounces(
  db: Executor,
  input: { tenantId: string; email: string; now: Date },
): Promise<SoftBounceRecord> {
  await db
    .insert(addressBounces)
    .values({
      tenantId: input.tenantId,
      email: input.email,
      softCount: 0,
      windowStart: input.now,
      lastSoftAt: input.now,
    })
    .onConflictDoNothing()
  const [row] = await db
    .select({
      softCount: addressBounces.softCount,
      windowStart: addressBounces.windowStart,
      lastSoftAt: addressBounces.lastSoftAt,
      lastMessageId: addressBounces.lastMessageId,
    })
    .from(addressBounces)
    .where(and(eq(addressBounces.tenantId, input.tenantId), eq(addressBounces.email, input.email)))
    .for('update')
  if (!row) throw new Error('the soft-bounce row was not there after its insert')
  return row
}

async function saveSoftBounces(
  db: Executor,
  input: { tenantId: string; email: string; record: SoftBounceRecord },
): Promise<void> {
  await db
    .update(addressBounces)
    .set({
      softCount: input.record.softCount,
      windowStart: input.record.windowStart,
      lastSoftAt: input.record.lastSoftAt,
      lastMessageId: input.record.lastMessageId,
    })
    .where(and(eq(addressBounces.tenantId, input.tenantId), eq(addressBounces.email, input.email)))
}

/**
 * Whether the tenant delivered (`sent`) another message to the address after `since`: one probe of
 * the sent-by-recipient index (tenant_id, lower(to_address), sent_at).
 */
async function deliveredSince(
  db: Executor,
  input: { tenantId: string; email: string; since: Date; exceptMessageId: string },
): Promise<boolean> {
  const [row] = await db.execute<{ delivered: boolean }>(sql`
    select exists (
      select 1 from messages m
      where m.tenant_id = ${input.tenantId}
        and lower(m.to_address) = ${input.email.toLowerCase()}
        and m.status = 'sent'
        and m.sent_at > ${input.since.toISOString()}::timestamptz
        and m.id <> ${input.exceptMessageId}
    ) as delivered`)
  return row?.delivered === true
}

/**
 * Gives each listed `sent` message the status its feedback events call for (complained over a hard
 * bounce), and answers every listed message's status, in one statement: a status read apart from the
 * update could be a send recorded in between, seen as `sent` and never settled. The events are read
 * through the timeline index (tenant_id, message_id).
 */
export async function settleFeedbackStatuses(
  db: Executor,
  refs: readonly MessageRef[],
): Promise<{ messageId: string; status: MessageStatus }[]> {
  if (refs.length === 0) return []
  const list = JSON.stringify(refs.map((ref) => ({ id: ref.messageId, tenant_id: ref.tenantId })))
  return db.execute<{ messageId: string; status: MessageStatus }>(sql`
    with listed as (
      select * from jsonb_to_recordset(${list}::jsonb) as v(id uuid, tenant_id uuid)
    ), target as (
      select e.tenant_id, e.message_id,
        case when bool_or(e.type = 'complained') then 'complained' else 'bounced' end as status
      from listed v
      join message_events e on e.tenant_id = v.tenant_id and e.message_id = v.id
      where e.type = 'complained' or (e.type = 'bounced' and e.detail ->> 'kind' = 'hard')
      group by e.tenant_id, e.message_id
    ), settled as (
      update messages m
      set status = target.status, updated_at = now()
      from target
      where m.id = target.message_id and m.tenant_id = target.tenant_id and m.status = 'sent'
      returning m.id, m.status
    )
    select m.id as "messageId", coalesce(settled.status, m.status) as status
    from listed v
    join messages m on m.id = v.id and m.tenant_id = v.tenant_id
    left join settled on settled.id = m.id`)
}

/**
 * Messages with a hard bounce or complaint event since `since` whose status does not show it yet:
 * what the inbound server was still waiting to settle when it stopped. Reads the events of that span
 * through their BRIN index on `at`; run once at boot.
 */
export async function findUnsettledFeedback(db: Executor, query: { since: Date }): Promise<MessageRef[]> {
  const rows = await db.execute<{ tenantId: string; messageId: string }>(sql`
    select distinct e.tenant_id as "tenantId", e.message_id as "messageId"
    from message_events e
    join messages m on m.id = e.message_id and m.tenant_id = e.tenant_id
    where e.at >= ${query.since.toISOString()}::timestamptz
      and (e.type = 'complained' or (e.type = 'bounced' and e.detail ->> 'kind' = 'hard'))
      and m.status in ('pending', 'queued', 'sending', 'held', 'sent')`)
  return [...rows]
}
