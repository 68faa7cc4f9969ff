import { compareDnsRecord, type DnsAnswer } from '../dns-records'
import type { RecordLookupResult } from './apply-record-checks'
import { type ExpectedDomainRecord, expectedDomainRecords } from './domain-records'
import type { DnsLookup, DomainSettings, StoredDomain } from './ports'

/** Every record of the domain looked up at once (each lookup has its own timeout in the adapter). */
export function lookUpDomainRecords(
  domain: StoredDomain,
  deps: { dns: DnsLookup; settings: DomainSettings },
): Promise<RecordLookupResult[]> {
  return Promise.all(
    expectedDomainRecords(domain, deps.settings).map(async (record) => {
      const answer = await lookUpSafely(deps.dns, record)
      const found = foundText(answer)
      return { record, check: compareDnsRecord(record, answer), ...(found !== undefined ? { found } : {}) }
    }),
  )
}

/** An adapter that throws instead of answering an error code still only makes the record pending. */
async function lookUpSafely(dns: DnsLookup, record: ExpectedDomainRecord): Promise<DnsAnswer> {
  try {
    return await dns.lookup({ type: record.type, name: record.name })
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return { error: typeof code === 'string' ? code : 'EUNKNOWN' }
  }
}

/** What a lookup found, as the tenant would see it in a DNS tool: one line per record. */
function foundText(answer: DnsAnswer): string | undefined {
  if ('error' in answer) return undefined
  if (answer.records.length === 0) return undefined
  if (answer.type === 'TXT') return answer.records.map((chunks) => chunks.join('')).join('\n')
  if (answer.type === 'CNAME') return answer.records.join('\n')
  return answer.records.map((record) => `${record.priority} ${record.exchange}`).join('\n')
}
