import type { DomainDeps } from './ports'
import { checkDomain } from './verify-domain'

export interface CheckDueDomainsOptions {
  /** Domains claimed and looked up together. */
  batchSize: number
  /**
   * At most this many of one tenant's domains in a batch: batches take tenants in turns, so one
   * tenant's thousands due never keep another's new domain (and its held mail) waiting.
   */
  perTenant: number
  /** At most this many batches per run: a run stays short, the next one continues. */
  maxBatches: number
  /** How long a claimed domain is kept from other workers (longer than a batch's lookups take). */
  leaseMs: number
}

export const DEFAULT_CHECK_DUE_OPTIONS: CheckDueDomainsOptions = {
  batchSize: 10,
  perTenant: 5,
  maxBatches: 20,
  leaseMs: 2 * 60_000,
}

export interface CheckDueDomainsResult {
  checked: number
  verified: number
  failed: number
  pending: number
  /** Domains whose check threw (left to be checked again when their lease ends). */
  errors: number
  releasedMessages: number
}

/**
 * The scheduler's use case: domains whose next check is due, in small batches, each claimed so no
 * other worker checks it at the same time, looked up and updated like a manual verify (which also
 * forgets retired keys past their removal date). Pending domains are due every 5 minutes for 72
 * hours, verified and failed ones daily (`applyRecordChecks` sets the next time).
 */
export async function checkDueDomains(
  deps: DomainDeps & { onError?: (error: unknown, domainId: string) => void },
  options: CheckDueDomainsOptions = DEFAULT_CHECK_DUE_OPTIONS,
): Promise<CheckDueDomainsResult> {
  const result: CheckDueDomainsResult = {
    checked: 0,
    verified: 0,
    failed: 0,
    pending: 0,
    errors: 0,
    releasedMessages: 0,
  }
  for (let batch = 0; batch < options.maxBatches; batch += 1) {
    const claimed = await deps.store.claimDueDomains({
      limit: options.batchSize,
      leaseMs: options.leaseMs,
      perTenant: options.perTenant,
    })
    await Promise.all(
      claimed.map(async (query) => {
        try {
          const domain = await deps.store.findDomain(query)
          if (domain === null) return
          const checked = await checkDomain(domain, deps)
          result.checked += 1
          result[checked.domain.status] += 1
          result.releasedMessages += checked.releasedMessages
        } catch (error) {
          result.errors += 1
          deps.onError?.(error, query.domainId)
        }
      }),
    )
    // A short batch may only mean one tenant reached `perTenant`: stop when nothing is due.
    if (claimed.length === 0) break
  }
  return result
}
