import 'server-only'
import type { DomainView } from './domain-view'

interface DomainRef {
  tenantId: string
  domainId: string
}

/**
 * The domain use cases with the web container's dependencies, for the pages and actions of the
 * signed-in tenant. Placeholder until i14-domains lands.
 */
export function domainUseCases() {
  const missing = (): never => {
    throw new Error('domain use cases not wired yet')
  }
  return {
    list: async (_input: { tenantId: string }): Promise<DomainView[]> => missing(),
    get: async (_input: DomainRef): Promise<DomainView | null> => missing(),
    add: async (_input: { tenantId: string; name: string }): Promise<DomainView> => missing(),
    verify: async (_input: DomainRef): Promise<DomainView> => missing(),
    rotateDkim: async (_input: DomainRef): Promise<DomainView> => missing(),
    remove: async (_input: DomainRef): Promise<void> => missing(),
  }
}
