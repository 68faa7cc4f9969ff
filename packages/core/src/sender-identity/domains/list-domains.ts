import { type DomainView, domainView } from './domain-view'
import type { DomainSettings, DomainStore } from './ports'

/** The tenant's sending domains, by name, each with its records. */
export async function listDomains(
  query: { tenantId: string },
  deps: { store: DomainStore; settings: DomainSettings },
): Promise<DomainView[]> {
  const domains = await deps.store.listDomains(query)
  return domains.map((domain) => domainView(domain, deps.settings))
}
