import type { Sql } from 'postgres'

/**
 * The pacer's leadership: a session advisory lock held on one connection reserved from the pool for
 * as long as the process leads. When that connection dies PostgreSQL frees the lock, and another
 * process's `tryTakePacerLeadership` succeeds.
 */

/** A connection reserved from the pool (`sql.reserve()`); the caller releases it. */
export type ReservedConnection = Awaited<ReturnType<Sql['reserve']>>

/** `pg_advisory_lock` key of the pacer's leadership ("fl-pacer" in ASCII, truncated to 63 bits). */
export const PACER_LOCK_KEY = 0x666c2d7061636572n & 0x7fffffffffffffffn

/** True when this connection now holds the leadership (or already did); false when another one does. */
export async function tryTakePacerLeadership(connection: ReservedConnection): Promise<boolean> {
  const [row] = await connection<
    { locked: boolean }[]
  >`select pg_try_advisory_lock(${PACER_LOCK_KEY.toString()}::bigint) as locked`
  return row?.locked === true
}

/** Rejects when the leader's connection is gone, and with it the lock. */
export async function checkPacerLeadership(connection: ReservedConnection): Promise<void> {
  await connection`select 1`
}

export async function releasePacerLeadership(connection: ReservedConnection): Promise<void> {
  await connection`select pg_advisory_unlock(${PACER_LOCK_KEY.toString()}::bigint)`
}
