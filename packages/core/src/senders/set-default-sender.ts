import { checkKeyDomain } from '../api-keys/key-scope'
import type { AuditOf, AuditRecord } from '../audit/audit-record'
import { checkSenderDomain } from './check-sender-domain'
import type { SenderChoice, SenderDomains } from './ports'

export interface DefaultSenderStore {
  /** Sets (or with nulls clears) the tenant's default From and Reply-To; `audit` is written with it. */
  updateDefaultSender(input: { tenantId: string } & SenderChoice, audit?: AuditRecord): Promise<void>
}

/**
 * The tenant's default sender: used by mail that names no From (API messages, campaigns, templates
 * without one). Like an explicit `from`, it must be on a verified domain when it is set (422 naming
 * `from`); later failures of that domain hold its mail rather than refuse it. An API key restricted to
 * one domain (`keyDomain`) may set only a From on that domain, and may not clear it: every key of the
 * tenant that names no From sends with the default.
 */
export async function setDefaultSender(
  input: {
    tenantId: string
    sender: SenderChoice
    keyDomain?: string | null
    /** The change's audit entry, written with it. */
    audit?: AuditOf<SenderChoice> | undefined
  },
  deps: { domains: SenderDomains; store: DefaultSenderStore },
): Promise<SenderChoice> {
  const { tenantId, sender } = input
  checkKeyDomain(input.keyDomain ?? null, sender.from, 'default sender')
  if (sender.from !== null) await checkSenderDomain({ tenantId, from: sender.from }, deps)
  await deps.store.updateDefaultSender({ tenantId, ...sender }, input.audit?.(sender))
  return sender
}
