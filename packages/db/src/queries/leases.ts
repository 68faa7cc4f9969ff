import { and, eq, lt, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { leases } from '../schema'

/**
 * Leaderships as lease rows (`leases`): one statement each, no session state, so they hold through
 * a transaction-mode pooler (PgBouncer) where a session advisory lock would be lost with the
 * connection it was taken on. Times are the server's (`now()`), so the processes' clocks never meet.
 */

export interface LeaseKey {
  /** The leadership, e.g. `pacer`. */
  name: string
  /** Who holds it: `hostname:pid:random` (see `leaseHolderId`). */
  holder: string
}

/**
 * Takes the lease if nobody holds it or its holder let it expire; the term (fencing number) grows by
 * one on every takeover. Undefined: someone else holds it. A holder whose own lease is still running
 * gets undefined too: it renews instead.
 */
export async function takeLease(
  db: Executor,
  input: LeaseKey & {
    ttlMs: number
    /**
     * A standby takes over only a lease that expired this long ago (ms), so a preferred candidate
     * that renews or takes it in that time keeps it; 0 (default): as soon as it expired.
     */
    expiredForMs?: number
  },
): Promise<{ term: number } | undefined> {
  const expiresAt = sql`now() + make_interval(secs => ${input.ttlMs / 1000})`
  const expiredBefore = sql`now() - make_interval(secs => ${(input.expiredForMs ?? 0) / 1000})`
  const [row] = await db
    .insert(leases)
    .values({ name: input.name, holder: input.holder, acquiredAt: sql`now()`, expiresAt })
    .onConflictDoUpdate({
      target: leases.name,
      set: {
        holder: input.holder,
        term: sql`${leases.term} + 1`,
        acquiredAt: sql`now()`,
        expiresAt,
      },
      setWhere: lt(leases.expiresAt, expiredBefore),
    })
    .returning({ term: leases.term })
  return row
}

/**
 * Pushes the lease's expiry out by `ttlMs`, only for the holder of this term: false means another
 * process took it over (the lease had expired), and this one must stop acting as the leader at once.
 */
export async function renewLease(
  db: Executor,
  input: LeaseKey & { term: number; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .update(leases)
    .set({ expiresAt: sql`now() + make_interval(secs => ${input.ttlMs / 1000})` })
    .where(and(eq(leases.name, input.name), eq(leases.holder, input.holder), eq(leases.term, input.term)))
    .returning({ term: leases.term })
  return rows.length === 1
}

/** Ends the lease now (a graceful stop): the next `takeLease` of any process succeeds without waiting. */
export async function releaseLease(db: Executor, input: LeaseKey & { term: number }): Promise<boolean> {
  const rows = await db
    .update(leases)
    .set({ expiresAt: sql`now()` })
    .where(and(eq(leases.name, input.name), eq(leases.holder, input.holder), eq(leases.term, input.term)))
    .returning({ term: leases.term })
  return rows.length === 1
}

/** The lease row as it is, for tests and the admin's eyes. */
export async function findLease(db: Executor, name: string) {
  const [row] = await db.select().from(leases).where(eq(leases.name, name))
  return row
}
