import type { MessageStatus } from '@fairlane/core'
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm'
import { messageClaims, messages } from '../schema'

/** An attempt holds the message now (a claim with a lock token in `message_claims`, live or expired). */
export const claimed = (): SQL =>
  sql`exists (select 1 from ${messageClaims} vc where vc.message_id = ${messages.id} and vc.lock_token is not null)`

/**
 * The message was handed to a job (a row in `message_claims`: a bulk release, or a claim): the pacer
 * must not release it again, and a batch that failed for good still owes it a job.
 */
export const handedOut = (): SQL =>
  sql`exists (select 1 from ${messageClaims} vc where vc.message_id = ${messages.id})`

/**
 * The message's status as readers see it: `sending` while an attempt holds a claim on it (the table
 * keeps such a message `queued` or `pending`, so a claim costs no write of the wide row), `queued`
 * while a bulk release waits for its job (the table keeps it `pending`).
 */
export const visibleStatus = (): SQL<MessageStatus> =>
  sql<MessageStatus>`case when ${messages.status} in ('queued', 'pending') then coalesce(
      (select case when vc.lock_token is null then 'queued' else 'sending' end
        from ${messageClaims} vc where vc.message_id = ${messages.id}),
      ${messages.status}) else ${messages.status} end`

/** The attempts as readers see them: the claim's while an attempt holds the message (it counts itself). */
export const visibleAttempts = (): SQL<number> =>
  sql<number>`coalesce((select vc.attempts from ${messageClaims} vc where vc.message_id = ${messages.id}), ${messages.attempts})`

/** A filter on the status as readers see it (`visibleStatus`), shaped for the status indexes. */
export function hasVisibleStatus(status: MessageStatus): SQL | undefined {
  if (status === 'sending') return and(inArray(messages.status, ['queued', 'pending']), claimed())
  if (status === 'queued') {
    return or(
      and(eq(messages.status, 'queued'), sql`not ${claimed()}`),
      and(
        eq(messages.status, 'pending'),
        sql`exists (
        select 1 from ${messageClaims} vc where vc.message_id = ${messages.id} and vc.lock_token is null)`,
      ),
    )
  }
  if (status === 'pending') return and(eq(messages.status, 'pending'), sql`not ${handedOut()}`)
  return eq(messages.status, status)
}

/**
 * The DELETE that ends a claim when `holder` still holds it (same message, same lock token) and the
 * message is the holder's tenant's, returning the claim's `message_id` and `attempts` (the attempt
 * it was); `also` adds conditions on the message (`owner`). A claim another attempt took over (its
 * token replaced) matches nothing. For a data-modifying CTE (`with gone as (…)`).
 */
export function endClaimStatement(
  holder: { messageId: string; tenantId: string; lockToken: string },
  also: SQL = sql``,
): SQL {
  return sql`delete from ${messageClaims} c
    using ${messages} owner
    where c.message_id = ${holder.messageId} and c.lock_token = ${holder.lockToken}::uuid
      and owner.id = c.message_id and owner.tenant_id = ${holder.tenantId}
      ${also}
    returning c.message_id, c.attempts`
}

/**
 * The UPDATE that turns a claim back into a release when `holder` still holds it: the job that was
 * deferred keeps the message (the pacer does not release it again), no attempt is counted (the
 * attempts go back to what they were before this claim), and `locked_until` becomes `untilMs`, when
 * the deferred job is due, so the sweeper asks after it only once it is late. Returns `message_id`.
 * For a data-modifying CTE.
 */
export function claimToReleaseStatement(
  holder: { messageId: string; tenantId: string; lockToken: string },
  untilMs: number,
): SQL {
  return sql`update ${messageClaims} c
    set lock_token = null, attempts = c.attempts - 1,
      locked_until = greatest(now(), to_timestamp(${Math.round(untilMs)}::bigint / 1000.0))
    from ${messages} owner
    where c.message_id = ${holder.messageId} and c.lock_token = ${holder.lockToken}::uuid
      and owner.id = c.message_id and owner.tenant_id = ${holder.tenantId}
    returning c.message_id`
}
