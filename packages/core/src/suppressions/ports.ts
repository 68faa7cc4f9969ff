import type { AuditOf } from '../audit/audit-record'
import type { SuppressionReason } from '../domain/statuses'
import type { SuppressionScope } from '../domain/suppression-scopes'

/** One address on a tenant's suppression list (one row per address; see `widerScope`). */
export interface SuppressionEntry {
  email: string
  reason: SuppressionReason
  scope: SuppressionScope
  /** Why, in the words of what caused it: a bounce's diagnostic, a complaint's feedback type, a note. */
  detail: string | null
  createdAt: Date
}

export interface SuppressionQuery {
  tenantId: string
  /** A part of the address (lowercased: addresses are stored so): entries whose address contains it. */
  emailContains?: string
  reason?: SuppressionReason
  scope?: SuppressionScope
  /** Entries after this address (keyset paging in email order). */
  after?: string
  limit: number
}

/** The suppression list as the API needs it (`@fairlane/db/queries/suppressions`). */
/** One address to add (the store lowercases it). */
export interface NewSuppression {
  email: string
  reason: SuppressionReason
  scope: SuppressionScope
  detail?: string | null
}

export interface SuppressionStore {
  list(query: SuppressionQuery): Promise<SuppressionEntry[]>
  /**
   * Adds each address, or widens an existing entry's scope (never narrows it, never replaces a
   * wider entry's reason); answers every address's entry as it stands afterwards, in input order.
   */
  add(input: { tenantId: string; entries: readonly NewSuppression[] }): Promise<SuppressionEntry[]>
  /**
   * The same as `add` for a large batch (an import), answering only how many addresses were new and
   * how many existing entries were widened to every lane; the rest were already listed.
   */
  addMany(input: {
    tenantId: string
    entries: readonly NewSuppression[]
  }): Promise<{ added: number; widened: number }>
  /**
   * Removes the address's entry (only when its scope is `scope`, if given) and, in the same
   * transaction, its soft-bounce count (`address_bounces`), so a lifted address starts afresh.
   * Answers the entry removed, or null when there was none.
   */
  remove(
    input: {
      tenantId: string
      email: string
      scope?: SuppressionScope
    },
    audit?: AuditOf<SuppressionEntry>,
  ): Promise<SuppressionEntry | null>
}

/** Who did a tenant-side action, as the tenant audit log records it. */
export interface TenantActor {
  userId: string
  email: string
}

export type ResubscribeResult =
  | { kind: 'not-found' }
  /** Nothing to undo: the contact was not unsubscribed and had no marketing-scoped suppression. */
  | { kind: 'already-subscribed' }
  | {
      kind: 'resubscribed'
      email: string
      /** An every-lane suppression (bounce, complaint, manual) that stays: resubscribing does not lift it. */
      remainingScope: SuppressionScope | null
    }

export interface ResubscribeStore {
  /**
   * In one transaction: clears the contact's `unsubscribed_at`, deletes its address's
   * marketing-scoped suppression, and appends the audit entry, so the entry exists exactly when the
   * change happened.
   */
  resubscribe(input: {
    tenantId: string
    contactId: string
    actor: TenantActor
    note: string | null
    now: Date
  }): Promise<ResubscribeResult>
}
