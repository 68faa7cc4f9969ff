import { sql } from 'drizzle-orm'
import { check, date, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns'

/**
 * MX mode: what Fairlane has learnt about each receiving provider, per egress address (Gmail,
 * Microsoft and Yahoo throttle per sending IP) and per scope: `''` for every tenant, or one tenant's
 * id when the provider throttled that tenant's domain alone (Gmail's 421 4.7.28 names the DKIM
 * domain). `state` is the rate controller's (`@fairlane/delivery/shaping/aimd`): the allowed rate,
 * the rate last throttled at, the pause. Written only when a provider throttles (rarely); the rate's
 * slow climb back is computed from it on read, so nothing is written while all is well. The truth
 * survives a restart and a Redis flush alike: a provider that throttled is not hit at full rate again.
 */
export const receiverStates = pgTable(
  'receiver_states',
  {
    egress: text('egress').notNull(),
    provider: text('provider').notNull(),
    scope: text('scope').notNull().default(''),
    state: jsonb('state').notNull(),
    pausedUntil: timestamptz('paused_until'),
    throttles: integer('throttles').notNull().default(0),
    lastReply: text('last_reply'),
    throttledAt: timestamptz('throttled_at'),
    updatedAt: timestamptz('updated_at').notNull().default(sql`now()`),
  },
  (table) => [
    primaryKey({ columns: [table.egress, table.provider, table.scope] }),
    check('receiver_states_throttles_check', sql`${table.throttles} >= 0`),
  ],
)

export type ReceiverStateRow = typeof receiverStates.$inferSelect

/**
 * The days each egress address sent mail on (UTC), for its warm-up: a new address's daily cap per
 * provider grows with the days it actually sent, not with the calendar. One row per address a day.
 */
export const egressSendingDays = pgTable(
  'egress_sending_days',
  {
    egress: text('egress').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.egress, table.day] })],
)
