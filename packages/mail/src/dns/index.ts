export { createHostAddressLookup } from './host-address-lookup'
export { createDnsLookup, DEFAULT_DNS_LOOKUP, type DnsLookupOptions } from './resolver-lookup'
