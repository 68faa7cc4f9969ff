import { type Database, type Message, messageClaims, messages } from '@fairlane/db'
import { visibleAttempts, visibleStatus } from '@fairlane/db/queries/message-claims'
import { eq, type SQL, sql } from 'drizzle-orm'

/**
 * A message as readers and tests think of it: its `messages` row with the status and attempts
 * readers see (`sending` and the claim's attempt while one holds it) and its claim's lock token and
 * expiry (null without a claim, and for a release: a bulk message handed to a job, or a deferred one).
 */
export type MessageWithClaim = Message & { lockToken: string | null; lockedUntil: Date | null }

export async function readMessageWithClaim(
  db: Database,
  messageId: string,
): Promise<MessageWithClaim | undefined> {
  const [found] = await db
    .select({
      message: messages,
      status: visibleStatus(),
      attempts: visibleAttempts(),
      lockToken: messageClaims.lockToken,
      // A release (no token) locks nothing: only a claim's expiry is a lock's.
      lockedUntil:
        sql<Date | null>`case when ${messageClaims.lockToken} is not null then ${messageClaims.lockedUntil} end`.mapWith(
          messageClaims.lockedUntil,
        ),
    })
    .from(messages)
    .leftJoin(messageClaims, eq(messageClaims.messageId, messages.id))
    .where(eq(messages.id, messageId))
  if (!found) return undefined
  const { message, ...seen } = found
  return { ...message, ...seen }
}

/** Gives a message a claim as an attempt would (queued, with a claim): a worker mid-send, or one that died. */
export async function claimForTest(
  db: Database,
  messageId: string,
  claim: { lockedUntil: SQL; lockToken?: string | SQL },
): Promise<void> {
  await db.update(messages).set({ status: 'queued' }).where(eq(messages.id, messageId))
  const lockToken = claim.lockToken ?? sql`gen_random_uuid()`
  await db
    .insert(messageClaims)
    .values({
      messageId,
      lockToken,
      lockedUntil: claim.lockedUntil,
      attempts: sql`(select attempts + 1 from messages where id = ${messageId})`,
    })
    .onConflictDoUpdate({
      target: messageClaims.messageId,
      set: { lockToken, lockedUntil: claim.lockedUntil },
    })
}

/** The claim's holder died: its lock ran out a second ago. */
export async function expireClaim(db: Database, messageId: string): Promise<void> {
  await db
    .update(messageClaims)
    .set({ lockedUntil: sql`now() - interval '1 second'` })
    .where(eq(messageClaims.messageId, messageId))
}
