import { type DnsRecord, type DnsRecordType, isDnsName } from '@fairlane/dns-server'
import type { ReceiverIdentity } from './receiver-faults'

/** What can hold records: the sink's DNS server, or a test's (`startTestDnsServer`). */
export interface DnsZone {
  publish(record: DnsRecord): void
  remove(name: string, type?: DnsRecordType): unknown
}

/**
 * The MX host and test domains of the receivers named like the big providers. Their MX host names
 * are the providers' own patterns (`*.google.com`, `*.protection.outlook.com`, `*.yahoodns.net`), so
 * the default receiver rules roll `gmail.test` and `googlemail.test` up into one provider, as they
 * would `gmail.com`. Only the sink's own DNS server serves these names, pointing at loopback.
 */
const KNOWN_RECEIVERS: Record<string, { mxHost: string; domains: string[] }> = {
  google: { mxHost: 'gmail-smtp-in.l.google.com', domains: ['gmail.test', 'googlemail.test'] },
  microsoft: {
    mxHost: 'outlook-test.mail.protection.outlook.com',
    domains: ['outlook.test', 'hotmail.test'],
  },
  yahoo: { mxHost: 'mta5.am0.yahoodns.net', domains: ['yahoo.test'] },
}

/** The MX host name of a receiver: a known provider's (see KNOWN_RECEIVERS), else `mx.<name>.test`. */
export function receiverMxHost(receiver: Pick<ReceiverIdentity, 'name' | 'address'>): string {
  const known = KNOWN_RECEIVERS[receiver.name]
  if (known) return known.mxHost
  // A receiver named by its address (no `=name`) gets a label made of it: 127-0-0-10.
  return `mx.${receiver.name.replace(/\./g, '-')}.test`
}

/** The test domains published for a receiver at start: a known provider's, else `<name>.test`. */
export function receiverDomains(receiver: Pick<ReceiverIdentity, 'name'>): string[] {
  return KNOWN_RECEIVERS[receiver.name]?.domains ?? [`${receiver.name.replace(/\./g, '-')}.test`]
}

/**
 * Publishes a receiver's MX host (an A record of its address) and its default test domains (an MX
 * record each, preference 10, to that host).
 */
export function publishReceiver(zone: DnsZone, receiver: ReceiverIdentity): void {
  const mxHost = receiverMxHost(receiver)
  zone.remove(mxHost, 'A')
  zone.publish({ type: 'A', name: mxHost, value: receiver.address })
  for (const domain of receiverDomains(receiver)) publishReceiverDomain(zone, domain, receiver)
}

/**
 * Points a domain's mail at a receiver: its MX record (replacing any MX it had) names the receiver's
 * MX host; the host's A record is published too, so the domain resolves on its own.
 */
export function publishReceiverDomain(zone: DnsZone, domain: string, receiver: ReceiverIdentity): void {
  if (!isDnsName(domain)) throw new Error(`not a DNS name: ${JSON.stringify(domain)}`)
  const mxHost = receiverMxHost(receiver)
  zone.remove(mxHost, 'A')
  zone.publish({ type: 'A', name: mxHost, value: receiver.address })
  zone.remove(domain, 'MX')
  zone.publish({ type: 'MX', name: domain, value: mxHost, priority: 10 })
}
