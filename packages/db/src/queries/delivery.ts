import type { MessageStatus, SuppressionScope } from '@fairlane/core'
import type {
  BatchDeliveryStore,
  ClaimedMessage,
  DeliveryErrorCode,
  DeliveryState,
  FailureNote,
  FeedbackVerdict,
  HeldClaim,
  HoldResult,
  MessageContentKind,
  ReleasedClaim,
  SendJob,
  SentClaim,
  UnclaimedClaim,
} from '@fairlane/core/delivery'
import { and, eq, inArray, or, type Placeholder, type SQL, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { messageClaims, messageEvents, messages } from '../schema'
import { claimToReleaseStatement, endClaimStatement, handedOut, visibleStatus } from './message-claims'
import { readKeptContent } from './message-contents'
import { suppressAddress } from './suppressions'

/** last_error is for people reading the admin console; an SMTP transcript does not need to be longer. */
const MAX_ERROR_LENGTH = 2_000

const byJob = (job: SendJob) => and(eq(messages.id, job.messageId), eq(messages.tenantId, job.tenantId))

/** A value now, or a named placeholder in a statement prepared once (`createDeliveryStore`). */
type Param<T> = T | Placeholder

/**
 * Ends `claim` if it still holds its message, and writes the outcome in the same statement:
 * `gone` is the deleted claim (`message_id`, `attempts`: the attempt it was), `changed` the message
 * row as `change` (an UPDATE of messages … FROM gone … RETURNING, or a SELECT) leaves it, and
 * `event` (a SELECT of (tenant_id, message_id, type, detail) from `changed`), when given, the event
 * each changed row gets. Answers how many rows `changed` has. A claim another attempt took over
 * (its token replaced) matches nothing: neither the claim nor the message is touched.
 */
async function endClaim(db: Executor, claim: HeldClaim, change: SQL, event?: SQL): Promise<number> {
  const [row] = await db.execute<{ changed: number }>(sql`
    with gone as (${endClaimStatement(claim)}), changed as (${change})${event ? sql`, event as (insert into ${messageEvents} (tenant_id, message_id, type, detail) ${event})` : sql``}
    select count(*)::int as changed from changed`)
  return row?.changed ?? 0
}

/**
 * The send claim, in one statement: the message's row locked (a concurrent claim or settle of it is
 * waited for and its outcome seen: a message settled meanwhile is not claimable any more), then a
 * row in `message_claims` inserted — or taken over, when the one there has expired; a live claim
 * makes the insert do nothing, so exactly one claimer wins. Times come from the database's clock
 * only, so workers' clocks never disagree about whose lock expired. The wide `messages` row is read
 * and locked, not written.
 */
function claimStatement(
  db: Executor,
  input: { messageId: Param<string>; tenantId: Param<string>; lockMs: Param<number> },
) {
  return claimWhere(
    db,
    sql`select m.id, m.attempts from ${messages} m
      where m.id = ${input.messageId} and m.tenant_id = ${input.tenantId}
        and m.status in ('queued', 'pending')
      for no key update of m`,
    input.lockMs,
  )
}

/**
 * A batch's claim: every claimable one of a tenant's messages in one statement. Rows another claimer
 * holds at this instant are skipped (SKIP LOCKED) rather than waited for, so two overlapping claims
 * (a batch and a message's own job) never wait on each other or deadlock; a skipped row reads as
 * `queued` without a claim afterwards and its batch simply comes back for it.
 */
function claimBatchStatement(
  db: Executor,
  input: { tenantIds: readonly string[]; messageIds: readonly string[]; lockMs: number },
) {
  // By primary key, the list's length as a LIMIT, and the tenant and status as one CASE: as plain
  // conditions the planner drove the read from the (tenant, status) index instead of the id list,
  // reading its unvacuumed entries (860 rows returned per email in the throughput bench).
  return claimWhere(
    db,
    sql`select m.id, m.attempts from ${messages} m
      where m.id = any(${`{${input.messageIds.join(',')}}`}::uuid[])
        and case when m.tenant_id = any(${`{${input.tenantIds.join(',')}}`}::uuid[]) and m.status in ('queued', 'pending')
          then true else false end
      order by m.id
      limit ${sql.raw(String(input.messageIds.length))}
      for no key update of m skip locked`,
    input.lockMs,
  )
}

/**
 * Claims the rows `candidates` (a SELECT of `id`, `attempts` from messages, locking them) picks:
 * each gets a claim (a fresh lock token, `locked_until` lockMs from now, the attempt it is), unless a
 * live claim holds it. Returns what the send needs of each claimed message and its claim.
 */
function claimWhere(db: Executor, candidates: SQL, lockMs: Param<number>) {
  const claimed = db
    .$with('claimed', {
      messageId: sql<string>`message_id`.as('message_id'),
      lockToken: sql<string>`lock_token`.as('lock_token'),
      claimAttempts: sql<number>`attempts`.as('claim_attempts'),
    })
    .as(sql`
      insert into ${messageClaims} (message_id, lock_token, locked_until, attempts)
      select candidate.id, gen_random_uuid(), now() + ${lockMs}::int * interval '1 millisecond', candidate.attempts + 1
      from (${candidates}) candidate
      on conflict (message_id) do update
        set lock_token = excluded.lock_token, locked_until = excluded.locked_until,
          attempts = ${messageClaims}.attempts + 1
        where ${messageClaims}.lock_token is null or ${messageClaims}.locked_until < now()
      returning message_id, lock_token, attempts as claim_attempts`)
  return db
    .with(claimed)
    .select({
      id: messages.id,
      tenantId: messages.tenantId,
      lane: messages.lane,
      campaignId: messages.campaignId,
      toAddress: messages.toAddress,
      subject: messages.subject,
      html: messages.html,
      text: messages.text,
      attempts: claimed.claimAttempts,
      generation: messages.generation,
      createdAt: messages.createdAt,
      lockToken: claimed.lockToken,
      // Written out qualified on purpose: drizzle renders RETURNING columns unqualified, and inside
      // this subquery an unqualified "tenant_id" would be the suppression's own — matching every tenant.
      // The scope only: whether it stops this message is the lane's question, answered in core.
      recipientSuppression: sql<SuppressionScope | null>`(
        select s.scope from suppressions s
        where s.tenant_id = messages.tenant_id
          and s.email = lower(messages.to_address)
          and s.message_id is distinct from messages.id)`,
      // A report about this very message (its own bounce or complaint came back before its send was
      // recorded): looked for only when the address's suppression names this message, so the usual
      // claim pays one more probe of the suppression's key and none of the timeline.
      feedback: sql<FeedbackVerdict | null>`(
        select case
          when exists (
            select 1 from message_events e
            where e.tenant_id = messages.tenant_id and e.message_id = messages.id and e.type = 'complained')
            then 'complained'
          when exists (
            select 1 from message_events e
            where e.tenant_id = messages.tenant_id and e.message_id = messages.id
              and e.type = 'bounced' and e.detail ->> 'kind' = 'hard')
            then 'bounced'
          end
        from suppressions s
        where s.tenant_id = messages.tenant_id
          and s.email = lower(messages.to_address)
          and s.message_id = messages.id)`,
      // From, Reply-To and sending domain as resolved at accept or dispatch; the tenant's name for the
      // platform sender's display name, by primary key in this same statement (no second round trip).
      fromAddress: messages.fromAddress,
      replyTo: messages.replyTo,
      sendingDomainId: messages.sendingDomainId,
      tenantName: sql<string>`(select t.name from tenants t where t.id = messages.tenant_id)`,
      trackOpens: messages.trackOpens,
      trackClicks: messages.trackClicks,
      // The tenant's privacy switch, read only for mail that may be tracked: API mail that asked for
      // it, and campaign mail (whose switches the renderer has); untracked API mail pays nothing.
      trackingDisabled: sql<boolean>`case when messages.campaign_id is not null or messages.track_opens or messages.track_clicks
        then coalesce((select t.tracking_disabled from tenants t where t.id = messages.tenant_id), false)
        else false end`,
      // Campaign mail: the contact as it is now (it is rendered at send time), and whether it left
      // after dispatch, so an unsubscribe between dispatch and send is honoured.
      // Content kept beside the row, found by primary key: submitted MIME first (it is the whole
      // message), else API attachments. Campaign mail has neither and pays no probe.
      content: sql<MessageContentKind | null>`case when messages.campaign_id is null then (
        case
          when exists (select 1 from message_contents k where k.message_id = messages.id) then 'raw'
          when exists (select 1 from message_attachments a where a.message_id = messages.id) then 'attachments'
        end) end`,
      contactId: messages.contactId,
      contact: sql<{
        name: string | null
        attributes: Record<string, unknown>
        unsubscribed: boolean
      } | null>`(
        select json_build_object('name', c.name, 'attributes', c.attributes, 'unsubscribed', c.unsubscribed_at is not null)
        from contacts c where c.id = messages.contact_id and c.tenant_id = messages.tenant_id)`,
    })
    .from(messages)
    .innerJoin(claimed, eq(messages.id, claimed.messageId))
}

type ClaimRow = Awaited<ReturnType<typeof claimStatement>>[number]

function toClaimedMessage(row: ClaimRow | undefined): ClaimedMessage | undefined {
  if (!row) return undefined
  const { lockToken, contactId, contact, trackOpens, trackClicks, ...rest } = row
  return {
    ...rest,
    lockToken,
    tracking: { opens: trackOpens, clicks: trackClicks },
    contact:
      contactId && contact ? { id: contactId, name: contact.name, attributes: contact.attributes } : null,
    recipientUnsubscribed: contact?.unsubscribed === true,
  }
}

export async function claimMessage(
  db: Executor,
  input: SendJob & { lockMs: number },
): Promise<ClaimedMessage | undefined> {
  const [row] = await claimStatement(db, { ...input, lockMs: Math.ceil(input.lockMs) })
  return toClaimedMessage(row)
}

/**
 * Claims every claimable one of the messages in one statement (`claimBatchStatement`): each of them
 * only if it belongs to one of `tenantIds` (one tenant's batch, or several tenants' first turns).
 */
export async function claimMessages(
  db: Executor,
  input: { tenantIds: readonly string[]; messageIds: readonly string[]; lockMs: number },
): Promise<ClaimedMessage[]> {
  if (input.messageIds.length === 0) return []
  const rows = await claimBatchStatement(db, { ...input, lockMs: Math.ceil(input.lockMs) })
  return rows.flatMap((row) => toClaimedMessage(row) ?? [])
}

/** A message's delivery state: its status as readers see it and the time left on its claim. */
const deliveryState = {
  status: visibleStatus(),
  // A release (no token) holds nothing: only a claim's lock has time remaining.
  lockRemainingMs: sql<number | null>`case when ${messageClaims.lockToken} is not null
    then (extract(epoch from (${messageClaims.lockedUntil} - now())) * 1000)::float8 end`,
}

/** The delivery state of each of the tenants' messages, in one read; absent ids do not exist. */
export async function readDeliveryStates(
  db: Executor,
  input: { tenantIds: readonly string[]; messageIds: readonly string[] },
): Promise<Map<string, DeliveryState>> {
  if (input.messageIds.length === 0) return new Map()
  const rows = await db
    .select({ id: messages.id, ...deliveryState })
    .from(messages)
    .leftJoin(messageClaims, eq(messageClaims.messageId, messages.id))
    .where(and(inArray(messages.tenantId, [...input.tenantIds]), inArray(messages.id, [...input.messageIds])))
  return new Map(rows.map(({ id, ...state }) => [id, state]))
}

/**
 * Which of a tenant's messages still wait for a delivery (`queued`, with or without a claim, or
 * `pending` under a claim or a release), with their publish generation: a batch job that failed for good hands each of
 * them to its own job (`sendJobId` of that generation).
 */
export async function readUnfinishedMessages(
  db: Executor,
  input: { tenantIds: readonly string[]; messageIds: readonly string[] },
): Promise<Array<{ messageId: string; tenantId: string; generation: number }>> {
  if (input.messageIds.length === 0) return []
  return db
    .select({ messageId: messages.id, tenantId: messages.tenantId, generation: messages.generation })
    .from(messages)
    .where(
      and(
        inArray(messages.tenantId, [...input.tenantIds]),
        inArray(messages.id, [...input.messageIds]),
        or(eq(messages.status, 'queued'), and(eq(messages.status, 'pending'), handedOut())),
      ),
    )
}

export async function readDeliveryState(db: Executor, job: SendJob): Promise<DeliveryState | undefined> {
  const [row] = await db
    .select(deliveryState)
    .from(messages)
    .leftJoin(messageClaims, eq(messageClaims.messageId, messages.id))
    .where(byJob(job))
  return row
}

/**
 * Marks sent each message whose claim is still the given one (same lock token), ending the claim,
 * and writes each marked row's `sent` event with the server's reply, in one statement and one commit
 * whatever their number; returns the ids it marked.
 *
 * Shaped for one plan, a primary-key lookup per claim, driven by the list (its length as a LIMIT, so
 * the planner knows it: it guesses 100 rows for `jsonb_to_recordset`).
 */
async function markSentRows(db: Executor, claims: readonly SentClaim[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set()
  const list = JSON.stringify(
    claims.map((claim) => ({
      id: claim.messageId,
      tenant_id: claim.tenantId,
      lock_token: claim.lockToken,
      response: claim.response ?? null,
    })),
  )
  const rows = await db.execute<{ id: string }>(sql`
    with v as materialized (
      select * from jsonb_to_recordset(${list}::jsonb) as r(id uuid, tenant_id uuid, lock_token uuid, response text)
      limit ${sql.raw(String(claims.length))}
    ), gone as (
      delete from ${messageClaims} c using v
      where c.message_id = v.id and c.lock_token = v.lock_token
      returning c.message_id, c.attempts, v.tenant_id, v.response
    ), sent as (
      update messages m
      set status = 'sent', sent_at = now(), attempts = gone.attempts, updated_at = now()
      from gone
      where m.id = gone.message_id and m.tenant_id = gone.tenant_id
      returning m.id, m.tenant_id, gone.response
    ), event as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select tenant_id, id, 'sent', jsonb_strip_nulls(jsonb_build_object('response', response)) from sent
    )
    select id from sent`)
  return new Set(rows.map((row) => row.id))
}

export async function markMessageSent(db: Executor, claim: SentClaim): Promise<boolean> {
  return (await markSentRows(db, [claim])).has(claim.messageId)
}

/**
 * Queued again for another try, unless its campaign was cancelled meanwhile: then cancelled, so the
 * next try finds nothing to send. Qualified by hand: drizzle would render the columns unqualified,
 * and inside this subquery "tenant_id" would then be the campaign's own.
 */
const campaignCancelled = sql`exists (
    select 1 from campaigns c
    where c.id = messages.campaign_id and c.tenant_id = messages.tenant_id and c.status = 'cancelled')`
const requeued = sql`case when ${campaignCancelled} then 'cancelled' else 'queued' end`

/**
 * The claim ended and the message queued again, so BullMQ's retry can claim it at once; or
 * cancelled when its campaign was cancelled while this attempt was sending, so the retry finds
 * nothing to send. Queued again with a retry to follow (`retryFollows`), the message gets its
 * `retrying` event (`{ code, attempt }`); after the final attempt the dead letter's `failed` tells the rest.
 */
export async function releaseMessage(db: Executor, claim: ReleasedClaim): Promise<boolean> {
  const changed = await endClaim(
    db,
    claim,
    sql`update messages set status = ${requeued}, attempts = gone.attempts,
        last_error = ${clip(claim.error)}, last_error_code = ${claim.errorCode}, updated_at = now()
      from gone where messages.id = gone.message_id
      returning messages.id, messages.tenant_id, messages.status, messages.attempts`,
    sql`select tenant_id, id, 'retrying', jsonb_build_object('code', ${claim.errorCode}::text, 'attempt', attempts)
      from changed where status = 'queued' and ${claim.retryFollows}::boolean`,
  )
  return changed > 0
}

/**
 * A claim given back unused (the tenant's bucket had no token): the claim becomes a release again
 * (the deferred job keeps the message; `claimToReleaseStatement`) and its attempt ends with it —
 * deferring is not a delivery try — and the message gets its `deferred` event (`{ untilMs }`: when it
 * is tried again) in the same statement. The message's row is not written (it is still `queued` or
 * `pending`), unless its campaign was cancelled meanwhile: then it is cancelled, with no event, as in
 * `releaseMessage` (its release row is left to the message: nothing claims a cancelled message).
 */
export async function unclaimMessage(db: Executor, claim: UnclaimedClaim): Promise<boolean> {
  const [row] = await db.execute<{ changed: number }>(sql`
    with gone as (${claimToReleaseStatement(claim, claim.untilMs)}), cancelled as (
      update messages set status = 'cancelled', updated_at = now()
      from gone where messages.id = gone.message_id and ${campaignCancelled}
      returning messages.id
    ), event as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      -- MX mode adds the receiving provider and its reply (jsonb_strip_nulls: relay mode has neither).
      select ${claim.tenantId}::uuid, gone.message_id, 'deferred', jsonb_strip_nulls(jsonb_build_object(
          'untilMs', ${Math.round(claim.untilMs)}::bigint,
          'provider', ${claim.provider ?? null}::text,
          'reply', ${claim.reply === undefined ? null : clip(claim.reply)}::text))
      from gone where gone.message_id not in (select id from cancelled)
    )
    select count(*)::int as changed from gone`)
  return (row?.changed ?? 0) > 0
}

/**
 * The send's outcome is unknown: the error is noted, and the claim is left as it is, so it holds
 * until `locked_until` and no attempt can send the message again before then. A retry follows once
 * it has expired: the `retrying` event says so.
 */
export async function noteOutcomeUnknown(db: Executor, claim: HeldClaim & FailureNote): Promise<boolean> {
  const [row] = await db.execute<{ changed: number }>(sql`
    with held as (
      select c.message_id, c.attempts from ${messageClaims} c
      where c.message_id = ${claim.messageId} and c.lock_token = ${claim.lockToken}::uuid
    ), changed as (
      update messages set last_error = ${clip(claim.error)}, last_error_code = ${claim.errorCode}, updated_at = now()
      from held where messages.id = held.message_id and messages.tenant_id = ${claim.tenantId}
      returning messages.id, messages.tenant_id, held.attempts
    ), event as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select tenant_id, id, 'retrying', jsonb_build_object('code', ${claim.errorCode}::text, 'attempt', attempts)
      from changed
    )
    select count(*)::int as changed from changed`)
  return (row?.changed ?? 0) > 0
}

/** Failed for good, with its `failed` event (`{ code, attempts }`) in the same statement. */
export async function markMessageFailed(db: Executor, claim: HeldClaim & FailureNote): Promise<boolean> {
  const changed = await endClaim(
    db,
    claim,
    sql`update messages set status = 'failed', failed_at = now(), attempts = gone.attempts,
        last_error = ${clip(claim.error)}, last_error_code = ${claim.errorCode}, updated_at = now()
      from gone where messages.id = gone.message_id
      returning messages.id, messages.tenant_id, messages.attempts`,
    failedEvent(sql`${claim.errorCode}::text`),
  )
  return changed > 0
}

/** The `failed` event of each row in `changed` (which returns `attempts`). */
function failedEvent(code: SQL): SQL {
  return sql`select tenant_id, id, 'failed', jsonb_build_object('code', ${code}, 'attempts', attempts) from changed`
}

/**
 * Skipped at send time: the recipient is suppressed, or the contact unsubscribed since dispatch. The
 * `suppressed` event names the suppression's reason (`unsubscribe` for a contact that left without
 * one), read in the same statement: the claim read only the scope.
 */
export async function markMessageSuppressed(
  db: Executor,
  claim: HeldClaim & { reason: string },
): Promise<boolean> {
  const changed = await endClaim(
    db,
    claim,
    sql`update messages set status = 'suppressed', attempts = gone.attempts,
        last_error = ${claim.reason}, last_error_code = 'suppressed', updated_at = now()
      from gone where messages.id = gone.message_id
      returning messages.id, messages.tenant_id, messages.to_address`,
    sql`select c.tenant_id, c.id, 'suppressed', jsonb_build_object('reason', coalesce(
        (select s.reason from suppressions s where s.tenant_id = c.tenant_id and s.email = lower(c.to_address)),
        'unsubscribe'))
      from changed c`,
  )
  return changed > 0
}

/**
 * Settled by its own report (a hard bounce or a complaint that came back before the send was recorded,
 * so the server had accepted an earlier attempt): the status the report gives it, claim ended, and
 * `sent_at` if it had none. No event: the report wrote its own.
 */
export async function settleMessageByFeedback(
  db: Executor,
  claim: HeldClaim & { status: FeedbackVerdict },
): Promise<boolean> {
  const changed = await endClaim(
    db,
    claim,
    sql`update messages set status = ${claim.status}, sent_at = coalesce(messages.sent_at, now()),
        attempts = gone.attempts, updated_at = now()
      from gone where messages.id = gone.message_id
      returning messages.id`,
  )
  return changed > 0
}

/**
 * Held: its sending domain cannot sign. The claim ends and its attempt with it (nothing was tried);
 * the domain's release sets it pending again when the domain verifies.
 */
export async function markMessageHeld(db: Executor, claim: HeldClaim & FailureNote): Promise<HoldResult> {
  // A domain that is not verified, read FOR SHARE: a verification committing its release (which
  // holds the domain row FOR UPDATE) is waited for and then seen, and one starting after this hold
  // sees the held row, so a message is never held behind a release that has already run. Checked
  // before the claim is ended: a verified domain leaves the claim to its holder, who sends.
  const domainUnverified =
    claim.errorCode === 'sender_domain_unverified'
      ? sql`and (owner.sending_domain_id is null or exists (
          select 1 from sending_domains d
          where d.id = owner.sending_domain_id and d.status <> 'verified'
          for share))`
      : sql``
  const [row] = await db.execute<{ held: number; holder: number }>(sql`
    with gone as (${endClaimStatement(claim, domainUnverified)}), changed as (
      update messages set status = 'held', last_error = ${clip(claim.error)},
        last_error_code = ${claim.errorCode}, updated_at = now()
      from gone where messages.id = gone.message_id
      returning messages.id
    )
    select (select count(*)::int from changed) as held,
      (select count(*)::int from ${messageClaims} c
        where c.message_id = ${claim.messageId} and c.lock_token = ${claim.lockToken}::uuid) as holder`)
  if ((row?.held ?? 0) > 0) return 'held'
  return (row?.holder ?? 0) > 0 ? 'domain-verified' : 'not-holder'
}

/**
 * After a lane job's final failure (out of attempts, or permanent): the row must read `failed`.
 * Only a row of the job's generation that nobody is sending is changed: `queued` without a live
 * claim (a transient failure released it, or its holder died). A live claim belongs to another
 * attempt that will record its own outcome; a newer generation is a re-publish that supersedes this
 * job. Returns the row's state afterwards, so the caller can tell whether the failure stands. A row
 * it marks gets its `failed` event in the same statement, and an expired claim on it ends.
 * Returned as readers see it (`sending` while claimed).
 */
export async function failAfterFinalAttempt(
  db: Executor,
  input: SendJob & { generation: number; error: string; errorCode: DeliveryErrorCode },
): Promise<{ status: MessageStatus; generation: number } | undefined> {
  return db.transaction(async (tx) => {
    // The row locked in a statement of its own first: a claim being made (it holds the lock until it
    // commits) is waited for, and the next statement's snapshot sees it.
    await tx.execute(sql`
      select 1 from ${messages} where id = ${input.messageId} and tenant_id = ${input.tenantId}
      for no key update`)
    return failIdleMessage(tx, input)
  })
}

async function failIdleMessage(
  db: Executor,
  input: SendJob & { generation: number; error: string; errorCode: DeliveryErrorCode },
): Promise<{ status: MessageStatus; generation: number } | undefined> {
  await db.execute(sql`
    with target as (
      select m.id from ${messages} m
      left join ${messageClaims} c on c.message_id = m.id
      where m.id = ${input.messageId} and m.tenant_id = ${input.tenantId} and m.generation = ${input.generation}
        and ((m.status = 'queued' and (c.message_id is null or c.lock_token is null or c.locked_until < now()))
          or (m.status = 'pending' and (c.lock_token is null or c.locked_until < now())))
      for no key update of m
    ), gone as (
      delete from ${messageClaims} c using target
      where c.message_id = target.id and (c.lock_token is null or c.locked_until < now())
      returning c.message_id, c.attempts
    ), changed as (
      update messages set status = 'failed', failed_at = now(), last_error = ${clip(input.error)},
        -- The attempt that failed last classified it best (BullMQ's final error may be a wrapper).
        last_error_code = coalesce(messages.last_error_code, ${input.errorCode}),
        attempts = coalesce((select gone.attempts from gone where gone.message_id = messages.id), messages.attempts),
        updated_at = now()
      from target where messages.id = target.id
      returning messages.id, messages.tenant_id, messages.attempts, messages.last_error_code
    ), event as (insert into ${messageEvents} (tenant_id, message_id, type, detail) ${failedEvent(sql`last_error_code`)})
    select count(*) from changed`)
  const [row] = await db
    .select({ status: visibleStatus(), generation: messages.generation })
    .from(messages)
    .where(byJob(input))
  return row
}

/**
 * Mark-sent with group commit: every mark-sent asked for in one turn of the event loop (the SMTP
 * replies that arrived together) goes to PostgreSQL as one UPDATE over a JSON list, one statement and
 * one commit instead of one each, with the same per-row condition (its claim's lock token). Each caller learns whether its own row was marked. Nothing waits for a timer: a lone
 * send is marked in the same turn it would have been.
 */
export function createMarkSentBatcher(db: Executor, options: { maxBatch?: number } = {}) {
  const maxBatch = options.maxBatch ?? 200
  let pending: Array<{
    claim: SentClaim
    resolve: (marked: boolean) => void
    reject: (error: unknown) => void
  }> = []
  let scheduled = false

  const flush = async () => {
    const batch = pending
    pending = []
    if (batch.length === 0) return
    try {
      const marked = await markSentRows(
        db,
        batch.map((item) => item.claim),
      )
      for (const item of batch) item.resolve(marked.has(item.claim.messageId))
    } catch (error) {
      for (const item of batch) item.reject(error)
    }
  }

  return (claim: SentClaim): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      pending.push({ claim, resolve, reject })
      if (pending.length >= maxBatch) {
        void flush()
      } else if (!scheduled) {
        scheduled = true
        setImmediate(() => {
          scheduled = false
          void flush()
        })
      }
    })
}

/**
 * The drizzle implementation of the send use case's store. The claim every email runs is built once
 * and prepared (building it and mark-sent per call cost about 0.4 ms of the worker's CPU per email);
 * mark-sent is one fixed statement, grouped per event-loop turn.
 */
export function createDeliveryStore(db: Database): BatchDeliveryStore {
  const placeholders = {
    messageId: sql.placeholder('messageId'),
    tenantId: sql.placeholder('tenantId'),
  }
  const claim = claimStatement(db, { ...placeholders, lockMs: sql.placeholder('lockMs') }).prepare(
    'fairlane_claim_message',
  )
  const markSent = createMarkSentBatcher(db)
  return {
    claim: async (input) =>
      toClaimedMessage(
        (
          await claim.execute({
            messageId: input.messageId,
            tenantId: input.tenantId,
            lockMs: Math.ceil(input.lockMs),
          })
        )[0],
      ),
    claimBatch: (input) => claimMessages(db, input),
    readState: (job) => readDeliveryState(db, job),
    readStates: (input) => readDeliveryStates(db, input),
    readContent: (input) => readKeptContent(db, input),
    markSent,
    release: (held) => releaseMessage(db, held),
    noteOutcomeUnknown: (held) => noteOutcomeUnknown(db, held),
    unclaim: (held) => unclaimMessage(db, held),
    markFailed: (held) => markMessageFailed(db, held),
    markSuppressed: (held) => markMessageSuppressed(db, held),
    settleByFeedback: (held) => settleMessageByFeedback(db, held),
    markHeld: (held) => markMessageHeld(db, held),
    suppress: (input) => suppressAddress(db, input),
  }
}

function clip(error: string): string {
  return error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH - 1)}…` : error
}
