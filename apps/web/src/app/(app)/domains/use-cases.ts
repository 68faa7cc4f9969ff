import 'server-only'
import {
  type AddDomainDeps,
  addDomain,
  type DomainQuery,
  type DomainView,
  deleteDomain,
  getDomain,
  listDomains,
  rotateDkim,
  verifyDomain,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createDomainStore } from '@fairlane/db/queries/sending-domains'
import { container } from '@/server/container'

/** The same dependencies as `/api/v1/domains`: the container's one DNS resolver (DNS_SERVERS) and settings. */
function deps(): AddDomainDeps {
  const { api } = container()
  return { store: createDomainStore(api.db), clock: api.clock, ...api.domains }
}

/**
 * The domain use cases for the Domains page's pages and actions, scoped by the tenant the caller
 * read from the session: the same functions, rules and errors as `/api/v1/domains`.
 */
export function domainUseCases() {
  return {
    list: (input: { tenantId: string }) => listDomains(input, deps()),
    /** Null for a missing id and for another tenant's: the page answers both with a 404. */
    get: async (query: DomainQuery): Promise<DomainView | null> => {
      try {
        return await getDomain(query, deps())
      } catch (error) {
        if (isAppError(error) && error.code === 'not_found') return null
        throw error
      }
    },
    add: (input: { tenantId: string; name: string }) => addDomain(input, deps()),
    verify: (query: DomainQuery) => verifyDomain(query, deps()),
    rotateDkim: (query: DomainQuery) => rotateDkim(query, deps()),
    remove: (query: DomainQuery) => deleteDomain(query, deps()),
  }
}
