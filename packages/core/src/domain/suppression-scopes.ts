import type { Lane } from './lanes'
import type { SuppressionReason } from './statuses'

/**
 * What a suppression stops, as Postmark scopes an unsubscribe to its message stream:
 * - `all`: every lane. A hard bounce (the mailbox does not exist), a complaint (the person called it
 *   spam) and a manual entry are about the address itself; nothing should reach it.
 * - `marketing`: campaign mail only (and, later, other marketing streams). An unsubscribe is a choice
 *   about newsletters: the person's sign-in codes, password resets and receipts must still arrive.
 */
export const SUPPRESSION_SCOPES = ['all', 'marketing'] as const
export type SuppressionScope = (typeof SUPPRESSION_SCOPES)[number]

export function isSuppressionScope(value: string): value is SuppressionScope {
  return (SUPPRESSION_SCOPES as readonly string[]).includes(value)
}

/** The lanes that carry marketing mail: campaigns go to `bulk`; `critical` and `default` are API mail. */
export const MARKETING_LANES = ['bulk'] as const satisfies readonly Lane[]

/** The scope a suppression gets when nobody chose one: only an unsubscribe is narrower than all lanes. */
export function scopeForReason(reason: SuppressionReason): SuppressionScope {
  return reason === 'unsubscribe' ? 'marketing' : 'all'
}

/** Whether an address suppressed with `scope` (null: not suppressed) may not be sent mail on `lane`. */
export function suppressionStops(scope: SuppressionScope | null, lane: Lane): boolean {
  if (scope === null) return false
  if (scope === 'all') return true
  return (MARKETING_LANES as readonly Lane[]).includes(lane)
}

/**
 * One row per address: when two suppressions meet, the wider scope wins (a hard bounce after an
 * unsubscribe stops every lane); an entry never narrows one already there.
 */
export function widerScope(a: SuppressionScope, b: SuppressionScope): SuppressionScope {
  return a === 'all' || b === 'all' ? 'all' : 'marketing'
}
