export {
  DNS_RECORD_TYPES,
  type DnsRecord,
  type DnsRecordType,
  type ParsedDnsRecord,
  parseDnsRecord,
} from './records'
export { type DnsServer, type DnsServerOptions, startDnsServer } from './server'
