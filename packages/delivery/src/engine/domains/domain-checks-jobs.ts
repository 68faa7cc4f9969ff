import { type CheckDueDomainsOptions, checkDueDomains, DEFAULT_CHECK_DUE_OPTIONS } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { createDomainStore } from '@fairlane/db/queries/sending-domains'
import { createDnsLookup, type DnsLookupOptions } from '@fairlane/mail/dns'
import type { Job } from 'bullmq'
import type { Logger } from 'pino'

/** Stable scheduler id: every worker process upserts the same one. */
export const DOMAIN_CHECKS_SCHEDULER_ID = 'domain-checks'
/**
 * Every minute: each run checks only the domains that are due (pending ones every 5 minutes for 72
 * hours, the others daily), so a minute is how late a due check may start, not how often one runs.
 */
export const DOMAIN_CHECKS_EVERY_MS = 60_000

export interface DomainCheckSettings {
  /** RETURN_PATH_HOST. */
  returnPathHost: string
  /** DNS_SERVERS; the system's resolvers when undefined. */
  dnsServers?: readonly string[]
  /** Per-lookup timeout and tries (defaults: `DEFAULT_DNS_LOOKUP`). */
  dns?: Pick<DnsLookupOptions, 'timeoutMs' | 'tries'>
  batch?: CheckDueDomainsOptions
}

export const DEFAULT_DOMAIN_CHECK_SETTINGS: DomainCheckSettings = {
  returnPathHost: 'bounces.fairlane.localhost',
}

export function domainCheckHandlers(
  settings: DomainCheckSettings,
  deps: { db: Database; logger: Logger },
): Record<typeof DOMAIN_CHECKS_SCHEDULER_ID, (job: Job) => Promise<unknown>> {
  const dns = createDnsLookup({ servers: settings.dnsServers, ...settings.dns })
  const store = createDomainStore(deps.db)
  const clock = { now: () => new Date() }
  return {
    [DOMAIN_CHECKS_SCHEDULER_ID]: async (job) => {
      const logger = deps.logger.child({ job: job.name, jobId: job.id })
      const result = await checkDueDomains(
        {
          store,
          dns,
          clock,
          settings: { returnPathHost: settings.returnPathHost },
          onError: (error, domainId) =>
            logger.warn(
              { domainId, err: (error as Error).message },
              'domain check failed; retried after its lease',
            ),
        },
        settings.batch ?? DEFAULT_CHECK_DUE_OPTIONS,
      )
      if (result.checked + result.errors > 0) logger.info(result, 'sending domains checked')
      return result
    },
  }
}
