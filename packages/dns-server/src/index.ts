export {
  DNS_RECORD_TYPES,
  type DnsRecord,
  type DnsRecordType,
  isDnsName,
  type ParsedDnsRecord,
  parseDnsRecord,
} from './records'
export { type DnsServer, type DnsServerOptions, startDnsServer } from './server'
