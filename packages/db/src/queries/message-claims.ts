import type { MessageStatus } from '@fairlane/core'
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm'
import { messageClaims, messages } from '../schema'

/** An attempt holds the message now (a row in `message_claims`, live or expired). */
export const claimed = (): SQL =>
  sql`exists (select 1 from ${messageClaims} vc where vc.message_id = ${messages.id})`

/**
 * The message's status as readers see it: `sending` while an attempt holds a claim on it (the table
 * keeps such a message `queued`, so a claim costs no write of the wide row).
 */
export const visibleStatus = (): SQL<MessageStatus> =>
  sql<MessageStatus>`case when ${messages.status} in ('queued', 'pending') and ${claimed()}
    then 'sending' else ${messages.status} end`

/** The attempts as readers see them: the claim's while an attempt holds the message (it counts itself). */
export const visibleAttempts = (): SQL<number> =>
  sql<number>`coalesce((select vc.attempts from ${messageClaims} vc where vc.message_id = ${messages.id}), ${messages.attempts})`

/** A filter on the status as readers see it (`visibleStatus`), shaped for the status indexes. */
export function hasVisibleStatus(status: MessageStatus): SQL | undefined {
  if (status === 'sending') return and(inArray(messages.status, ['queued', 'pending']), claimed())
  if (status === 'queued' || status === 'pending')
    return and(eq(messages.status, status), sql`not ${claimed()}`)
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
