import { AppError } from '../../errors/app-error'
import { type DomainView, domainView } from './domain-view'
import type { DomainSettings, DomainStore, StoredDomain } from './ports'

export interface DomainQuery {
  tenantId: string
  domainId: string
}

/** One of the tenant's domains with its records; another tenant's id reads as missing (404). */
export async function getDomain(
  query: DomainQuery,
  deps: { store: DomainStore; settings: DomainSettings },
): Promise<DomainView> {
  return domainView(await findOwnDomain(query, deps), deps.settings)
}

export async function findOwnDomain(query: DomainQuery, deps: { store: DomainStore }): Promise<StoredDomain> {
  const domain = await deps.store.findDomain(query)
  if (domain === null) throw domainNotFound(query.domainId)
  return domain
}

export function domainNotFound(domainId: string): AppError {
  return new AppError('not_found', `No sending domain with id ${JSON.stringify(domainId)}`)
}
