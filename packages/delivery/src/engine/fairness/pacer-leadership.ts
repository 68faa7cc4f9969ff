import { hostname } from 'node:os'
import type { Database } from '@fairlane/db'
import { releaseLease, renewLease, takeLease } from '@fairlane/db/queries/leases'
import type { Logger } from 'pino'
import { type HeldLease, leaseHolderId, mayLead, PACER_LEASE, trustedUntil } from './pacer-lease'

export interface PacerLeadership {
  /** This process's holder id (`hostname:pid:random`). */
  readonly holder: string
  /**
   * Once per tick: renews the lease if held, else tries to take it. True: this process leads and may
   * release a batch now. A renewal that finds another holder (or term) is leadership lost, at once.
   */
  ensure(): Promise<boolean>
  /** A graceful stop: ends the lease now so another process takes over at its next try. */
  release(): Promise<void>
}

export interface PacerLeadershipOptions {
  db: Database
  logger: Logger
  holder?: string
  ttlMs?: number
  marginMs?: number
  /**
   * A standby candidate (the split layout's bulk process, `processRoles`): it takes the lease only
   * once it has been expired this long, and tries none in its first `standbyMs`, so the preferred
   * candidate (worker-tx) leads whenever it runs, and the standby takes over when it does not.
   */
  standbyMs?: number
  now?: () => number
}

/** The pacer's leadership as the `pacer` lease row (see `pacer-lease.ts` for the timing). */
export function createPacerLeadership(options: PacerLeadershipOptions): PacerLeadership {
  const holder = options.holder ?? leaseHolderId(hostname(), process.pid)
  const timing = {
    ttlMs: options.ttlMs ?? PACER_LEASE.ttlMs,
    marginMs: options.marginMs ?? PACER_LEASE.marginMs,
  }
  const now = options.now ?? Date.now
  const key = { name: PACER_LEASE.name, holder }
  const standbyMs = options.standbyMs ?? 0
  const startedAtMs = now()
  let held: HeldLease | undefined

  return {
    holder,
    async ensure() {
      const sentAtMs = now()
      if (held) {
        // A thrown error (PostgreSQL away) fails the tick with nothing released; the term tells at
        // the next renewal whether the lease is still this process's.
        if (!(await renewLease(options.db, { ...key, term: held.term, ttlMs: timing.ttlMs }))) {
          options.logger.warn({ holder, term: held.term }, 'pacer leadership lost')
          held = undefined
          return false
        }
        held = { term: held.term, trustedUntilMs: trustedUntil(sentAtMs, timing) }
        return mayLead(held, now())
      }
      if (now() - startedAtMs < standbyMs) return false
      const taken = await takeLease(options.db, { ...key, ttlMs: timing.ttlMs, expiredForMs: standbyMs })
      if (!taken) return false
      held = { term: taken.term, trustedUntilMs: trustedUntil(sentAtMs, timing) }
      options.logger.info({ holder, term: taken.term, ttlMs: timing.ttlMs }, 'pacer leadership taken')
      return mayLead(held, now())
    },
    async release() {
      const lease = held
      held = undefined
      if (!lease) return
      try {
        const released = await releaseLease(options.db, { ...key, term: lease.term })
        options.logger.info({ holder, term: lease.term, released }, 'pacer leadership released')
      } catch (error) {
        // It expires on its own within ttlMs; the next leader waits that long instead.
        options.logger.warn(
          { holder, term: lease.term, err: (error as Error).message },
          'pacer leadership release failed',
        )
      }
    },
  }
}
