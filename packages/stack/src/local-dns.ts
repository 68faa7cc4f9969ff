import { type Config, sinkDnsPort } from '@fairlane/config'

type DnsConfig = Pick<Config, 'HOST' | 'MAILSINK_DNS_PORT' | 'MAILSINK_HTTP_PORT' | 'DNS_SERVERS'>

/** Where the sink's DNS server answers (`127.0.0.1:8025`): its bind address as a client reaches it. */
export function sinkDnsAddress(config: DnsConfig): string {
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST === '::' ? '::1' : config.HOST
  return `${host.includes(':') ? `[${host}]` : host}:${sinkDnsPort(config)}`
}

/**
 * What `pnpm start` adds to the environment of web, worker and sink: `DNS_SERVERS` pointing at the
 * sink's DNS server, so domains published there verify and sign locally. A `DNS_SERVERS` of the
 * user's own stays as it is.
 */
export function localDnsEnv(config: DnsConfig): { DNS_SERVERS?: string } {
  return config.DNS_SERVERS ? {} : { DNS_SERVERS: sinkDnsAddress(config) }
}

/** The lines `pnpm start` prints about DNS: where lookups go and how to publish a record there. */
export function dnsHelpLines(config: DnsConfig, inboxUrl: string): string[] {
  const sink = sinkDnsAddress(config)
  const servers = config.DNS_SERVERS?.join(',') ?? sink
  const lines = [
    servers === sink
      ? `  DNS server     ${sink} (UDP, in the mail sink; DNS_SERVERS of web, worker and sink)`
      : `  DNS_SERVERS    ${servers} (yours; the sink's own DNS server ${sink} is not asked)`,
    `  publish a DNS record (the Domains page lists the ones to publish):`,
    `    curl -X POST ${inboxUrl}/dns/records -H 'content-type: application/json' \\`,
    `      -d '{"type":"TXT","name":"<selector>._domainkey.example.com","value":"v=DKIM1; k=rsa; p=<key>"}'`,
    `    (also "type":"CNAME" for the return path; GET ${inboxUrl}/dns/records lists them, DELETE ?name=&type= removes)`,
  ]
  return lines
}
