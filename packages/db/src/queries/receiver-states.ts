import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { receiverStates } from '../schema'

/** One provider's state at one egress address, for every tenant (`scope` '') or one tenant's id. */
export interface ReceiverStateKey {
  egress: string
  provider: string
  scope: string
}

export interface StoredReceiverState<State> extends ReceiverStateKey {
  state: State
  pausedUntil: Date | null
  throttles: number
  lastReply: string | null
  throttledAt: Date | null
  updatedAt: Date
}

/** The rate controller's new state after a throttling reply, and until when the provider is paused. */
export interface ReceiverThrottle<State> {
  state: State
  pausedUntil: Date | null
}

/**
 * `receiver_states` (MX mode). Reads are cheap and cached by the caller; a throttle is one short
 * transaction that locks the row, so two workers seeing the same provider's 421 in the same moment
 * apply their cut one after the other (the controller's hold-down then makes the second a no-op).
 */
export function createReceiverStateStore<State>(db: Database) {
  return {
    /** The rows of `provider` at `egress` for the scopes asked ('' and a tenant's id), those that exist. */
    async read(input: {
      egress: string
      provider: string
      scopes: string[]
    }): Promise<StoredReceiverState<State>[]> {
      const rows = await db
        .select()
        .from(receiverStates)
        .where(
          and(
            eq(receiverStates.egress, input.egress),
            eq(receiverStates.provider, input.provider),
            inArray(receiverStates.scope, input.scopes),
          ),
        )
      return rows.map((row) => ({ ...row, state: row.state as State }))
    },

    /**
     * Applies a throttling reply: `change` gets the current state (undefined for a provider never
     * throttled here) and answers the new one, under the row's lock.
     */
    async throttle(
      key: ReceiverStateKey,
      reply: string,
      change: (current: State | undefined) => ReceiverThrottle<State>,
    ): Promise<StoredReceiverState<State>> {
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(receiverStates)
          .where(
            and(
              eq(receiverStates.egress, key.egress),
              eq(receiverStates.provider, key.provider),
              eq(receiverStates.scope, key.scope),
            ),
          )
          .for('update')
        const next = change(current ? (current.state as State) : undefined)
        const values = {
          state: next.state,
          pausedUntil: next.pausedUntil,
          throttles: sql`${receiverStates.throttles} + 1`,
          lastReply: reply.slice(0, 500),
          throttledAt: sql`now()`,
          updatedAt: sql`now()`,
        }
        const [row] = await tx
          .insert(receiverStates)
          .values({ ...key, ...values, throttles: 1 })
          .onConflictDoUpdate({
            target: [receiverStates.egress, receiverStates.provider, receiverStates.scope],
            set: values,
          })
          .returning()
        if (!row) throw new Error(`receiver state of ${key.provider} at ${key.egress} was not written`)
        return { ...row, state: row.state as State }
      })
    },

    /** Every provider's state, for the console and `GET /api/admin/receivers`. */
    list: (): Promise<StoredReceiverState<State>[]> => listReceiverStates<State>(db),
  }
}

export async function listReceiverStates<State>(db: Executor): Promise<StoredReceiverState<State>[]> {
  const rows = await db
    .select()
    .from(receiverStates)
    .orderBy(receiverStates.provider, receiverStates.egress, receiverStates.scope)
  return rows.map((row) => ({ ...row, state: row.state as State }))
}

export type ReceiverStateStore<State> = ReturnType<typeof createReceiverStateStore<State>>
