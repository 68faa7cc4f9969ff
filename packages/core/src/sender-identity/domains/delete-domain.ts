import type { AuditOf } from '../../audit/audit-record'
import { AppError } from '../../errors/app-error'
import { type DomainView, domainView } from './domain-view'
import { type DomainQuery, domainNotFound, findOwnDomain } from './get-domain'
import type { DomainSettings, DomainStore } from './ports'

/**
 * Deletes a domain and its keys, answering it as it was. Refused (409, saying how many) while mail
 * from it is still open — pending, queued, sending or held: without its key that mail could only
 * be sent unsigned, which it never is. Sent mail keeps its history (its domain id becomes null).
 */
export async function deleteDomain(
  query: DomainQuery & { audit?: AuditOf<Pick<DomainView, 'id' | 'name'>> | undefined },
  deps: { store: DomainStore; settings: DomainSettings },
): Promise<DomainView> {
  const { audit, ...own } = query
  const domain = await findOwnDomain(own, deps)
  const outcome = await deps.store.deleteDomain(own, audit?.(domain))
  if (outcome === null) throw domainNotFound(query.domainId)
  if (!outcome.deleted) {
    const count = outcome.openMessages
    throw new AppError(
      'conflict',
      `${domain.name} still has ${count} open ${count === 1 ? 'message' : 'messages'} (pending, queued, sending or held) from it; delete it once they are sent or cancelled`,
    )
  }
  return domainView(domain, deps.settings)
}
