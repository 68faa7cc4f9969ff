import type { DomainStatus } from '../domain/statuses'

/** A tenant's sending domain as sender resolution needs it. */
export interface SenderDomain {
  id: string
  status: DomainStatus
}

/**
 * What the sender use cases need from PostgreSQL (`@fairlane/db/queries/senders`): one indexed
 * lookup by (tenant, name), the name as `sending_domains` stores it (lowercase punycode).
 */
export interface SenderDomains {
  /** The tenant's domain with this name in any status; null when the tenant has none by that name. */
  findDomain(query: { tenantId: string; name: string }): Promise<SenderDomain | null>
}

/** From and Reply-To as stored header values (normalised by `parseSenderAddress`); null: none. */
export interface SenderChoice {
  from: string | null
  replyTo: string | null
}

export const NO_SENDER: SenderChoice = Object.freeze({ from: null, replyTo: null })
