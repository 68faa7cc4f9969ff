import { randomBytes } from 'node:crypto'

/**
 * The pacer's leadership as a lease (`leases` row `pacer`), timed here; the statements are in
 * `@fairlane/db/queries/leases`.
 *
 * - The leader renews every tick (100 ms with backlog, 250 ms idle), so a lease of `ttlMs` (5 s) is
 *   20–50 ticks long: a slow tick or a hiccup of PostgreSQL does not cost the leadership.
 * - It must outlast one whole tick, whose Redis calls each give up after PACER_REDIS_TIMEOUT_MS
 *   (2 s): a renewal sent at `t` is only trusted until `t + ttlMs - marginMs`; a tick that would
 *   start later renews first, and a renewal that comes back after its own deadline releases nothing.
 * - A leader killed with SIGKILL (no release) is replaced once its lease expires and a follower asks
 *   (every `followerRetryMs`, 1 s): within ttlMs + 1 s ≈ 6 s. A graceful stop ends the lease at once,
 *   so the next follower to ask takes over within 1 s.
 * - Two leaders for a moment (a stalled process that did not notice) cost fairness, never a duplicate:
 *   the release claims its rows in PostgreSQL before adding their jobs, and the buckets hold the rate.
 */
export const PACER_LEASE = {
  name: 'pacer',
  ttlMs: 5_000,
  /** Clock-rate drift and the renewal's own trip: the leader stops trusting its lease this much early. */
  marginMs: 500,
}

export interface HeldLease {
  term: number
  /** Local clock: until when no other process can have taken the lease (see `trustedUntil`). */
  trustedUntilMs: number
}

/**
 * The server set `expires_at = now() + ttl` at some moment after the request left (`sentAtMs`), and
 * nobody else can take the row before `expires_at`: on this process's clock, the lease is surely
 * ours until `sentAtMs + ttlMs`, less a margin for clocks that do not run at exactly the same rate.
 */
export function trustedUntil(sentAtMs: number, timing: { ttlMs: number; marginMs: number }): number {
  return sentAtMs + timing.ttlMs - timing.marginMs
}

/** Whether a leader may still act (release a batch) at `nowMs` on what its last renewal proved. */
export function mayLead(lease: HeldLease | undefined, nowMs: number): lease is HeldLease {
  return lease !== undefined && nowMs < lease.trustedUntilMs
}

/** `hostname:pid:random`: tells the processes apart in logs and the row, and a restarted pid from its predecessor. */
export function leaseHolderId(
  hostname: string,
  pid: number,
  random = randomBytes(4).toString('hex'),
): string {
  return `${hostname}:${pid}:${random}`
}

/** A lease must outlast the longest tick (three Redis calls at their timeout, plus PostgreSQL) and many renewals. */
export function checkLeaseTiming(timing: {
  ttlMs: number
  marginMs: number
  tickMs: number
  idleTickMs: number
  redisTimeoutMs: number
}): string[] {
  const problems: string[] = []
  const longestPause = Math.max(timing.tickMs, timing.idleTickMs)
  if (timing.ttlMs - timing.marginMs < 3 * longestPause)
    problems.push(`a lease of ${timing.ttlMs} ms is not several ticks of ${longestPause} ms long`)
  if (timing.ttlMs - timing.marginMs <= timing.redisTimeoutMs)
    problems.push(
      `a lease of ${timing.ttlMs} ms does not outlast one Redis call's timeout (${timing.redisTimeoutMs} ms)`,
    )
  return problems
}
