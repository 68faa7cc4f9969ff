import { AppError } from '../errors/app-error'
import type { SenderDomains } from './ports'
import { parseSenderAddress } from './sender-address'

/**
 * A From a tenant names (in a request, or saved on a campaign, a template or as its default) must be
 * on one of its own *verified* domains: anything else would be mail Fairlane cannot sign, or mail in
 * another tenant's name. Refused with 422 naming the field (the request is well-formed; it can
 * succeed once the domain verifies). Answers the domain's id.
 */
export async function checkSenderDomain(
  input: { tenantId: string; from: string; path?: string },
  deps: { domains: SenderDomains },
): Promise<string> {
  const path = input.path ?? 'from'
  const parsed = parseSenderAddress(input.from)
  if (!parsed.ok) throw new Error(`checkSenderDomain needs a parsed sender (${parsed.message})`)
  const { domain } = parsed.sender
  const found = await deps.domains.findDomain({ tenantId: input.tenantId, name: domain })
  if (found?.status === 'verified') return found.id
  const message =
    found === null
      ? `is on ${domain}, which is not one of your sending domains: add it under Domains and verify it first`
      : `is on ${domain}, which is not verified (it is ${found.status}): publish its DNS records and verify it first`
  throw new AppError('unprocessable', `${path} ${message}`, { details: [{ path, message }] })
}
