/** What the unsubscribe pages need from PostgreSQL (`@fairlane/db/queries/unsubscribe`). */
export interface UnsubscribeTarget {
  tenantName: string
  email: string
  unsubscribedAt: Date | null
}

export interface UnsubscribeStore {
  /** The contact named by a verified token; null when the contact (or its tenant) was deleted since. */
  findTarget(query: { tenantId: string; contactId: string }): Promise<UnsubscribeTarget | null>
  /**
   * Marks the contact unsubscribed (keeping the first time) and suppresses its address for the
   * tenant, in one transaction; idempotent.
   */
  unsubscribe(input: { tenantId: string; contactId: string; now: Date }): Promise<UnsubscribeTarget | null>
}
