/**
 * What `releaseByReceiver` (the bulk pacer in MX mode) needs from the outside: PostgreSQL's pending
 * bulk rows read in pages with their recipient domain, a domain's provider (MX lookup + rollup),
 * and the two-dimensional planner (providers' budgets × tenants' allowances, in the worker).
 */
import type { BacklogTenant, ReleasedMessage } from './ports'

/** Where a tenant's paging stopped: the last row read, in (created_at, id) order. */
export interface PendingCursor {
  /** `created_at` as PostgreSQL printed it (kept as text so no precision is lost). */
  createdAt: string
  messageId: string
}

/** A pending bulk row as the stage keeps it: enough to claim it and to know where it goes. */
export interface PendingBulkRow {
  messageId: string
  tenantId: string
  /** The recipient's domain, lower case: `lower(split_part(to_address, '@', 2))`. */
  domain: string
  createdAt: string
}

/** The pending bulk rows in PostgreSQL, read and claimed by id. */
export interface ReceiverBacklogStore {
  /** Tenants with pending bulk mail. */
  findBacklog(input: { cap: number }): Promise<BacklogTenant[]>
  /** A tenant's oldest pending bulk rows after `after` (from the first without it), in creation order. */
  pagePending(input: {
    tenantId: string
    after: PendingCursor | null
    limit: number
  }): Promise<PendingBulkRow[]>
  /**
   * These rows, those still pending and not locked by another claimer, become `queued` with their
   * `queued` event, COMMITTED when this resolves. Rows gone or taken are simply not returned.
   */
  claimByIds(rows: ReadonlyArray<{ tenantId: string; messageId: string }>): Promise<ReleasedMessage[]>
  /** Released rows whose jobs could not be added go back to pending. */
  giveBack(released: readonly ReleasedMessage[]): Promise<number>
}

/**
 * A domain's provider. `resolve` answers the provider's name, or null while it cannot be known
 * (a temporary DNS failure: the rows wait and the domain is asked again later). A domain that has
 * no mail servers at all (no such domain, null MX) still gets a provider — its own name — so its
 * rows are released and their sends fail permanently, rather than waiting for ever.
 */
export interface ProviderLookup {
  resolve(domain: string): Promise<string | null>
}

/** A (tenant, provider) pair's rows in the stage, for the planner. */
export interface ReceiverBacklog {
  tenantId: string
  provider: string
  backlog: number
}

/** One message to release, in enqueue order. */
export interface ReceiverSlot {
  tenantId: string
  provider: string
}

/**
 * The fairness rule in two dimensions, with its memory (providers' budgets, tenants' allowances,
 * the turn state). `plan` spends nothing; `commit` spends what the claim actually released, and
 * takes back the turn of a pair that got fewer rows than planned.
 */
export interface ReceiverPlanner {
  plan(input: {
    tenants: BacklogTenant[]
    backlogs: ReceiverBacklog[]
    /** The providers' rates now, messages a minute (0: paused), as `ratePerMinute` answered. */
    rates: Map<string, number>
    /**
     * Pairs a provider slowed on their own (it throttled that tenant's domain), keyed
     * `tenantId\u0000provider`: the pair's rate, messages a minute, inside the provider's.
     */
    pairRates?: Map<string, number>
    capacity: number
    nowMs: number
  }): { order: ReceiverSlot[] }
  commit(input: {
    pairs: ReadonlyArray<{ tenantId: string; provider: string; planned: number; released: number }>
    nowMs: number
  }): void
}
