import {
  DEFAULT_TEST_RECEIVERS,
  type DnsZone,
  publishReceiver,
  publishReceiverDomain,
  type ReceiverOptions,
} from '@fairlane/mailsink/receivers'
import { type MailSink, startMailSink } from '@fairlane/mailsink/sink'
import pino from 'pino'

export interface TestSinkOptions {
  /**
   * Receiving mail servers for the sink to play, all on one free port number (`sink.receiverPort`,
   * Fairlane's `MX_PORT`) on their own loopback addresses. `true`: DEFAULT_TEST_RECEIVERS (google
   * 127.0.0.10, microsoft 127.0.0.11, others 127.0.0.12).
   */
  receivers?: readonly ReceiverOptions[] | true
  /**
   * Run the sink's DNS server on a free UDP port (`sink.dns.address` is Fairlane's `DNS_SERVERS`),
   * with the receivers' MX records published (see the README's "Mail sink receivers"); it also
   * answers the sink's own DKIM lookups. Default: on when there are receivers.
   */
  dns?: boolean
}

/** An in-process mail sink on free ports, silent; with receivers and DNS when asked. */
export function startTestSink(options: TestSinkOptions = {}): Promise<MailSink> {
  const receivers = options.receivers === true ? DEFAULT_TEST_RECEIVERS : options.receivers
  const dns = options.dns ?? receivers !== undefined
  return startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    maxMessages: 100_000,
    logger: pino({ level: 'silent' }),
    receivers,
    receiverPort: 0,
    dnsPort: dns ? 0 : undefined,
  })
}

/**
 * Publishes the sink's receivers on another DNS server (a test's `startTestDnsServer()`): each
 * receiver's MX host and default domains, then `domains` (domain → receiver name or address).
 */
export function publishReceivers(zone: DnsZone, sink: MailSink, domains: Record<string, string> = {}): void {
  for (const receiver of sink.receivers) publishReceiver(zone, receiver)
  for (const [domain, reference] of Object.entries(domains)) {
    const receiver = sink.receivers.find(({ name, address }) => name === reference || address === reference)
    if (!receiver) throw new Error(`no receiver ${JSON.stringify(reference)} for ${domain}`)
    publishReceiverDomain(zone, domain, receiver)
  }
}

/** Message-IDs received more than once: the exactly-once check, counted the way the chaos bench counts. */
export function duplicateMessageIds(sink: MailSink): string[] {
  const seen = new Map<string, number>()
  for (const message of sink.store.list()) {
    const id = message.messageId ?? ''
    seen.set(id, (seen.get(id) ?? 0) + 1)
  }
  return [...seen].filter(([, count]) => count > 1).map(([id]) => id)
}
