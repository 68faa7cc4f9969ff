import type { TestDnsRecord, TestDnsServer } from './dns-server'

/** A record as a domain view lists it (the API's JSON or core's `DomainView`). */
export interface ListedDnsRecord {
  purpose: string
  type: string
  name: string
  value: string
  required?: boolean
}

/**
 * The records to publish for a domain, exactly as its view (`GET /api/v1/domains/:id`, or
 * `addDomain`'s answer) lists them; `purposes` keeps only some (e.g. `['dkim', 'return-path']`).
 */
export function domainRecordsToPublish(
  domain: { records: readonly ListedDnsRecord[] },
  options: { purposes?: readonly string[] } = {},
): TestDnsRecord[] {
  return domain.records
    .filter((record) => options.purposes === undefined || options.purposes.includes(record.purpose))
    .map((record) => {
      if (record.type !== 'TXT' && record.type !== 'CNAME' && record.type !== 'MX') {
        throw new Error(`cannot publish a ${record.type} record (${record.name})`)
      }
      return { type: record.type, name: record.name, value: record.value }
    })
}

/** Publishes a domain's listed records on the test DNS server; answers what it published. */
export function publishDomainRecords(
  dns: Pick<TestDnsServer, 'publish'>,
  domain: { records: readonly ListedDnsRecord[] },
  options: { purposes?: readonly string[] } = {},
): TestDnsRecord[] {
  const records = domainRecordsToPublish(domain, options)
  for (const record of records) dns.publish(record)
  return records
}
