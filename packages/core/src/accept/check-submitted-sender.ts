import { checkKeyDomain } from '../api-keys/key-scope'
import { AppError, validationFailed } from '../errors/app-error'
import type { ResolvedSender } from '../senders/resolve-sender'
import { parseSenderAddress } from '../senders/sender-address'
import type { SubmissionDomains } from './submission-ports'

export type SubmittedSender = Pick<ResolvedSender, 'fromAddress' | 'sendingDomainId'>

/**
 * The rule for a submitted sender (the envelope's MAIL FROM and the header From alike), as the API's:
 * an address on one of the tenant's verified domains signs with that domain; a tenant with no
 * verified domain at all sends as the platform (null), whatever the client wrote; anything else —
 * another tenant's domain, a domain the tenant has not verified, a stranger's — is refused naming the
 * address (`forbidden`: SMTP 550 5.7.1). A domain-restricted API key sends only from its domain.
 */
export async function checkSubmittedSender(
  input: { tenantId: string; address: string; field: 'From' | 'MAIL FROM'; keyDomain: string | null },
  deps: { domains: SubmissionDomains },
): Promise<SubmittedSender> {
  const parsed = parseSenderAddress(input.address)
  if (!parsed.ok) throw validationFailed([{ path: input.field, message: parsed.message }])
  const { domain, address } = parsed.sender
  const found = await deps.domains.findDomain({ tenantId: input.tenantId, name: domain })
  let sender: SubmittedSender
  if (found?.status === 'verified') {
    sender = { fromAddress: parsed.header, sendingDomainId: found.id }
  } else if (found === null && !(await deps.domains.hasVerifiedDomain({ tenantId: input.tenantId }))) {
    sender = { fromAddress: null, sendingDomainId: null }
  } else {
    const why = found === null ? 'which is not one of your sending domains' : `which is ${found.status}`
    throw new AppError(
      'forbidden',
      `${input.field} ${address} is on ${domain}, ${why}: send from one of your verified domains`,
    )
  }
  try {
    checkKeyDomain(input.keyDomain, sender.fromAddress)
  } catch {
    throw new AppError(
      'forbidden',
      `${input.field} ${address}: this API key may only send from the domain ${input.keyDomain}`,
    )
  }
  return sender
}
