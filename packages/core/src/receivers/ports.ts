/**
 * What `listReceivers` needs from the outside: the receiver states PostgreSQL keeps
 * (`@fairlane/db/queries/receiver-states`), the counters Redis keeps (`@fairlane/fairness`
 * `createReceiverCounters`), and the rate controller's reading of a state with the rules file's
 * ceilings (`@fairlane/delivery`: `parseRateState`, `withLimits`, `allowedAt`).
 */

/** One row of `receiver_states`: a provider's state at an egress address, for everyone or one tenant. */
export interface StoredReceiverState {
  provider: string
  /** '' when the system picks the source address. */
  egress: string
  /** '' for every tenant, or the id of the one tenant the provider throttled. */
  scope: string
  /** The rate controller's state, as stored (read through `ReceiverRates.rateOf`). */
  state: unknown
  lastReply: string | null
  throttledAt: Date | null
}

export interface ReceiverStateList {
  list(): Promise<StoredReceiverState[]>
}

/** Counts over a window, per (provider, egress), with each tenant's attempts. */
export interface ReceiverWindowCounts {
  provider: string
  egress: string
  attempts: number
  accepted: number
  throttled: number
  deferred: number
  tenants: { tenantId: string; attempts: number }[]
}

export interface ReceiverCountReader {
  read(input: { windowMinutes: number }): Promise<ReceiverWindowCounts[]>
}

/** A state read at an instant: what the controller allows now and what it remembers. */
export interface ReceiverRateNow {
  /** Messages a minute allowed now: 0 while paused. */
  ratePerMinute: number
  ceilingPerMinute: number
  /** The rate the provider last throttled at; null when it never has. */
  lastThrottledPerMinute: number | null
  /** Ms since the epoch; 0 when never paused. */
  pausedUntilMs: number
}

export interface ReceiverRates {
  /** The rules file's `perMinute` for the provider (its own rule, or the default for a domain). */
  ceilingOf(provider: string): number
  /** A stored state read at `nowMs` under the provider's ceiling; a corrupt state throws naming the field. */
  rateOf(input: { provider: string; state: unknown; nowMs: number }): ReceiverRateNow
}

export interface ListReceiversDeps {
  states: ReceiverStateList
  counters: ReceiverCountReader
  rates: ReceiverRates
  /** Tenants' names by id, for the console; an id it does not know (a deleted tenant) is left out. */
  tenantNames?(tenantIds: string[]): Promise<Map<string, string>>
  clock: { now(): Date }
}
