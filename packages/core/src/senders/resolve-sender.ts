import { checkSenderDomain } from './check-sender-domain'
import type { SenderChoice, SenderDomains } from './ports'
import { parseSenderAddress } from './sender-address'

/** What a message row stores: null `fromAddress` (and domain) means the platform's MAIL_FROM. */
export interface ResolvedSender {
  fromAddress: string | null
  replyTo: string | null
  sendingDomainId: string | null
}

export interface ResolveSenderInput {
  tenantId: string
  /** Named by this request (already parsed): its `from` must be on a verified domain now. */
  explicit: Partial<SenderChoice>
  /** The template's (API mail) or the campaign's saved sender; checked when it was saved. */
  saved: SenderChoice | null
  /** The tenant's default sender; checked when it was set. */
  defaults: SenderChoice
}

/**
 * Who a message is from: the request's `from`, else the template's or campaign's, else the tenant's
 * default, else the platform (null). Reply-To falls through the same order on its own.
 *
 * Only a `from` named now is checked against the domain's status (422 when not verified). A saved one
 * was checked when it was saved: if its domain failed since, the message still names it and the
 * worker holds it until the domain verifies again — a tenant's mail is held, not silently sent from
 * another address. A saved one whose domain the tenant deleted is passed over (no row, nothing could
 * sign it), and the next in the order applies.
 */
export async function resolveSender(
  input: ResolveSenderInput,
  deps: { domains: SenderDomains },
): Promise<ResolvedSender> {
  const { tenantId, explicit, saved, defaults } = input
  const replyTo = explicit.replyTo ?? saved?.replyTo ?? defaults.replyTo ?? null
  if (explicit.from) {
    const sendingDomainId = await checkSenderDomain({ tenantId, from: explicit.from }, deps)
    return { fromAddress: explicit.from, replyTo, sendingDomainId }
  }
  for (const from of [saved?.from, defaults.from]) {
    if (!from) continue
    const parsed = parseSenderAddress(from)
    if (!parsed.ok) continue
    const domain = await deps.domains.findDomain({ tenantId, name: parsed.sender.domain })
    if (domain !== null) return { fromAddress: parsed.header, replyTo, sendingDomainId: domain.id }
  }
  return { fromAddress: null, replyTo, sendingDomainId: null }
}
