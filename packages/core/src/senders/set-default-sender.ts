import { checkSenderDomain } from './check-sender-domain'
import type { SenderChoice, SenderDomains } from './ports'

export interface DefaultSenderStore {
  /** Sets (or with nulls clears) the tenant's default From and Reply-To. */
  updateDefaultSender(input: { tenantId: string } & SenderChoice): Promise<void>
}

/**
 * The tenant's default sender: used by mail that names no From (API messages, campaigns, templates
 * without one). Like an explicit `from`, it must be on a verified domain when it is set (422 naming
 * `from`); later failures of that domain hold its mail rather than refuse it.
 */
export async function setDefaultSender(
  input: { tenantId: string; sender: SenderChoice },
  deps: { domains: SenderDomains; store: DefaultSenderStore },
): Promise<SenderChoice> {
  const { tenantId, sender } = input
  if (sender.from !== null) await checkSenderDomain({ tenantId, from: sender.from }, deps)
  await deps.store.updateDefaultSender({ tenantId, ...sender })
  return sender
}
