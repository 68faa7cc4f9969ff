import { jainIndex } from '@fairlane/fairness'

/**
 * The receivers bench's arithmetic, kept pure so it can be tested without a platform: Jain's index
 * by weight, the window in which two tenants both had mail waiting for a provider, the throttle
 * share between two readings of a receiver's counters, and the ledger of accepted messages against
 * what the sink took (delivered, waiting, failed, lost, duplicates).
 */

/**
 * Jain's index of each tenant's count divided by its weight: 1 when every tenant got exactly its
 * weighted share, 1/n when one took everything. A weight of 2 is entitled to twice the count.
 */
export function jainByWeight(tenants: readonly { count: number; weight: number }[]): number {
  for (const tenant of tenants) {
    if (!(tenant.weight > 0)) throw new Error(`a tenant's weight must be above 0, got ${tenant.weight}`)
    if (!(tenant.count >= 0)) throw new Error(`a tenant's count must be 0 or more, got ${tenant.count}`)
  }
  return jainIndex(tenants.map((tenant) => tenant.count / tenant.weight))
}

/**
 * The window in which every tenant had mail waiting: from `startMs` to the moment the first of them
 * ran out (its last delivery, when all of its mail was delivered), or `endMs` if none ran out.
 */
export function bothBackloggedUntil(
  tenants: readonly { deliveredAt: readonly number[]; total: number }[],
  endMs: number,
): number {
  let until = endMs
  for (const tenant of tenants) {
    if (tenant.deliveredAt.length >= tenant.total && tenant.total > 0)
      until = Math.min(until, Math.max(...tenant.deliveredAt))
  }
  return until
}

export interface ReceiverCounters {
  attempts: number
  throttled: number
}

/** Throttle replies as a share of the attempts made between two readings; null without attempts. */
export function throttledShareBetween(before: ReceiverCounters, after: ReceiverCounters): number | null {
  const attempts = after.attempts - before.attempts
  if (attempts < 0 || after.throttled < before.throttled)
    throw new Error('the receiver counters went backwards between the two readings (reset in between?)')
  return attempts === 0 ? null : (after.throttled - before.throttled) / attempts
}

/** Statuses a message waits in: it may still be delivered (a deferred message is queued again). */
const WAITING = new Set(['pending', 'queued', 'sending', 'held'])

export interface AcceptedMessage {
  id: string
  status: string
  lastError: string | null
}

export interface Ledger {
  accepted: number
  delivered: number
  waiting: number
  failed: number
  /** Failed with a 4xx reply as the last word: temporary refusals that should have been waited out. */
  failedFor4xx: number
  /** Accepted, not at the sink, not waiting and not failed: gone without a trace. */
  lost: number
  /** Deliveries beyond the first of a Message-ID. */
  duplicates: number
}

/**
 * Accepted messages against the sink's count of each Message-ID's deliveries (keyed by message id).
 * A message is delivered when the sink took it at least once, whatever its row says (a crash
 * between the receiver's 250 and the status update leaves it `sending`).
 */
export function ledgerOf(
  accepted: readonly AcceptedMessage[],
  deliveries: ReadonlyMap<string, number>,
): Ledger {
  const ledger: Ledger = {
    accepted: accepted.length,
    delivered: 0,
    waiting: 0,
    failed: 0,
    failedFor4xx: 0,
    lost: 0,
    duplicates: 0,
  }
  for (const message of accepted) {
    const times = deliveries.get(message.id) ?? 0
    if (times > 0) {
      ledger.delivered++
      ledger.duplicates += times - 1
    } else if (WAITING.has(message.status)) {
      ledger.waiting++
    } else if (message.status === 'failed') {
      ledger.failed++
      if (/^\s*4\d\d\b/.test(message.lastError ?? '')) ledger.failedFor4xx++
    } else {
      ledger.lost++
    }
  }
  return ledger
}

/**
 * The nearest-rank percentile of latencies where `total` messages were measured and only some were
 * delivered: the undelivered count as slower than any delivered one. Null when the percentile falls
 * among the undelivered (it is then longer than the run, not a number this run can give).
 */
export function percentileCountingUndelivered(
  delivered: readonly number[],
  total: number,
  p: number,
): number | null {
  if (delivered.length > total) throw new Error(`${delivered.length} delivered of only ${total} messages`)
  if (total === 0) return null
  const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)))
  if (rank > delivered.length) return null
  return [...delivered].sort((a, b) => a - b)[rank - 1] as number
}
