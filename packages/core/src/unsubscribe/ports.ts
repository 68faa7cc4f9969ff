/**
 * How the recipient unsubscribed: the page's button (`link`), RFC 8058 one-click from its mail client,
 * or a complaint report (the inbound server unsubscribes whoever complained).
 */
export type UnsubscribeSource = 'link' | 'one-click' | 'complaint'

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
   * tenant, in one transaction; idempotent. The first time, the campaign's message to the contact
   * (the one whose link was used) gets its `unsubscribed` event (`{ source }`) in the same transaction.
   */
  unsubscribe(input: {
    tenantId: string
    contactId: string
    campaignId: string
    now: Date
    source: UnsubscribeSource
  }): Promise<UnsubscribeTarget | null>
}
