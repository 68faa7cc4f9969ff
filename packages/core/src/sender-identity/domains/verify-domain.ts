import type { RecordLookupResult } from './apply-record-checks'
import { applyRecordChecks } from './apply-record-checks'
import { expectedDomainRecords } from './domain-records'
import { type DomainView, domainView } from './domain-view'
import { type DomainQuery, domainNotFound, findOwnDomain } from './get-domain'
import { lookUpDomainRecords } from './look-up-records'
import type { DomainDeps, StoredDomain } from './ports'

export interface VerifyDomainResult {
  domain: DomainView
  /** Held messages put back on the send path because the domain became verified. */
  releasedMessages: number
}

export interface VerifyDomainDeps extends DomainDeps {
  /** Told how many held messages went back on the send path when the domain verified (again). */
  onHeldReleased?: (released: { domainId: string; messages: number }) => void
}

/**
 * Looks every record of the domain up now and answers the domain with the result (`POST
 * /api/v1/domains/:id/verify`); the scheduler's checks go through `checkDomain` below as well.
 */
export async function verifyDomain(query: DomainQuery, deps: VerifyDomainDeps): Promise<DomainView> {
  const domain = await findOwnDomain(query, deps)
  const result = await checkDomain(domain, deps)
  if (result.releasedMessages > 0) {
    deps.onHeldReleased?.({ domainId: domain.id, messages: result.releasedMessages })
  }
  return result.domain
}

/**
 * The lookups run with no lock or transaction open (they may take seconds); their results are then
 * applied to the row as it is under its lock, keeping only those for records it still lists (a
 * rotation may have begun meanwhile). Held mail is released in that same transaction.
 */
export async function checkDomain(domain: StoredDomain, deps: DomainDeps): Promise<VerifyDomainResult> {
  const results = await lookUpDomainRecords(domain, deps)
  const now = deps.clock.now()
  const updated = await deps.store.updateDomain(
    { tenantId: domain.tenantId, domainId: domain.id },
    (current) => applyRecordChecks(current, stillListed(current, results, deps), now),
  )
  if (updated === null) throw domainNotFound(domain.id)
  return { domain: domainView(updated.domain, deps.settings), releasedMessages: updated.releasedMessages }
}

function stillListed(
  current: StoredDomain,
  results: readonly RecordLookupResult[],
  deps: Pick<DomainDeps, 'settings'>,
): RecordLookupResult[] {
  const listed = expectedDomainRecords(current, deps.settings)
  return results.filter((result) =>
    listed.some(
      (record) =>
        record.purpose === result.record.purpose &&
        record.name === result.record.name &&
        record.value === result.record.value,
    ),
  )
}
