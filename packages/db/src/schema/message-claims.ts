import { index, integer, pgTable, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns'
import { messages } from './messages'

/**
 * The send claims and the bulk releases: a row while an attempt holds a message (what `messages`
 * shows as `sending`), or, without a lock token, while a bulk message waits in its lane for the job the
 * pacer gave it (a *release*: `messages` keeps it `pending`, readers see `queued`). The
 * state that changes per attempt lives here, in a narrow table of two indexes, so the wide
 * `messages` row (20 indexes) is written when the message is accepted, released and settled, not
 * when an attempt starts: a claim is an insert here, its end a delete here and the one write of the
 * outcome there.
 *
 * Only the holder of `lock_token` may settle the message, and a claim whose `locked_until` passed may
 * be taken over (an `INSERT … ON CONFLICT DO UPDATE … WHERE locked_until < now()`), so a killed worker
 * neither loses nor doubles a send. `attempts` is the attempt this claim is (the message's attempts
 * plus one), written to `messages` with the outcome.
 *
 * A release (`lock_token` null, `locked_until` when it was released or when its deferred job is due,
 * `attempts` the message's own) keeps the pacer from releasing the message twice and costs the wide
 * row no write: a bulk message's `messages` row is written at accept and at its outcome only. A claim
 * takes a release over like an expired claim; a deferral turns its claim back into a release.
 */
export const messageClaims = pgTable(
  'message_claims',
  {
    messageId: uuid('message_id')
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    lockToken: uuid('lock_token'),
    lockedUntil: timestamptz('locked_until').notNull(),
    attempts: integer('attempts').notNull(),
  },
  // Claims whose worker died: `locked_until` in the past (the sweeper's and the lane's question).
  (t) => [index('message_claims_locked_until_idx').on(t.lockedUntil)],
)

export type MessageClaim = typeof messageClaims.$inferSelect
