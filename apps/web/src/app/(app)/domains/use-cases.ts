import 'server-only'
import {
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
import { domainUseCaseDeps } from '@/server/api/v1/domains'
import { auditBy, audited } from '@/server/audit/record-audit'
import { currentAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'

/** The same dependencies as `/api/v1/domains`: the container's one DNS resolver (DNS_SERVERS) and settings. */
function deps() {
  return domainUseCaseDeps(container().api)
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
    add: async (input: { tenantId: string; name: string }) =>
      addDomain({ ...input, audit: auditBy(await currentAuditActor(), audited.domainAdded) }, deps()),
    /** Looks the records up now; answers how many held messages went back on the send path. */
    verify: async (query: DomainQuery): Promise<{ releasedMessages: number }> => {
      let releasedMessages = 0
      await verifyDomain(query, {
        ...deps(),
        onHeldReleased: ({ domainId, messages }) => {
          releasedMessages = messages
          container().logger.info(
            { tenantId: query.tenantId, domainId, releasedMessages: messages },
            'held mail released: its domain verified again',
          )
        },
      })
      return { releasedMessages }
    },
    rotateDkim: async (query: DomainQuery) =>
      rotateDkim({ ...query, audit: auditBy(await currentAuditActor(), audited.dkimRotated) }, deps()),
    remove: async (query: DomainQuery) =>
      deleteDomain({ ...query, audit: auditBy(await currentAuditActor(), audited.domainRemoved) }, deps()),
  }
}
