import { Resolver } from 'node:dns/promises'
import { type AuthenticateResult, authenticate, type DNSResolver } from 'mailauth'

/**
 * What the sink says about a message's authentication: would a receiver see a valid DKIM signature,
 * for which domain, and does SPF and DMARC agree. `dkim` is `none` when the message carries no
 * DKIM-Signature; any other outcome than `pass` (a bad body hash, no key, a DNS error) is `fail`,
 * and `dkimReason` says why. `spf`, `dmarc` and `aligned` are present only for signed mail: unsigned
 * mail is not looked up at all (see `isSigned`).
 */
export interface MessageAuth {
  dkim: 'pass' | 'fail' | 'none'
  /** d= of the signature reported (the first that passed, else the first). */
  dkimDomain?: string
  dkimSelector?: string
  /** Why the signature failed, as the verifier said it (e.g. "body hash did not verify"). */
  dkimReason?: string
  /** SPF of the envelope sender's domain for the client's address: pass, fail, softfail, neutral, none, temperror, permerror. */
  spf?: string
  /** The domain SPF was checked for (the envelope sender's, else the HELO name). */
  spfDomain?: string
  /** DMARC of the From domain: pass, fail, none (no record), temperror, permerror. */
  dmarc?: string
  /** A passing DKIM signature's d= is the From domain or shares its organizational domain. */
  aligned?: boolean
}

export const UNSIGNED: MessageAuth = Object.freeze({ dkim: 'none' }) as MessageAuth

/** Whether the message has a DKIM-Signature header (headers as parse-message records them: lowercase names). */
export function isSigned(headers: Record<string, string>): boolean {
  return 'dkim-signature' in headers
}

export interface SmtpClient {
  /** MAIL FROM; empty for the null sender. */
  sender: string
  /** The client's address as the socket saw it. */
  ip: string
  /** The EHLO/HELO name. */
  helo?: string | undefined
}

export interface AuthChecker {
  check(raw: Buffer, client: SmtpClient): Promise<MessageAuth>
}

export interface AuthCheckerOptions {
  resolver?: DNSResolver | undefined
  /** Upper bound for all the lookups of one message; past it the check answers `fail` ("timed out"). */
  timeoutMs?: number
  /** The name the Authentication-Results would carry; no DNS use. */
  hostname?: string
}

/**
 * Verifies DKIM, SPF and DMARC with mailauth. BIMI and ARC are left out: they cost lookups and a
 * developer's question is only "would my mail pass".
 */
export function createAuthChecker(options: AuthCheckerOptions = {}): AuthChecker {
  const timeoutMs = options.timeoutMs ?? 5_000
  return {
    async check(raw, client) {
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs)
      })
      try {
        const result = await Promise.race([
          authenticate(raw, {
            sender: client.sender || undefined,
            ip: plainIp(client.ip),
            helo: client.helo,
            mta: options.hostname ?? 'mailsink.fairlane.localhost',
            resolver: options.resolver,
            disableArc: true,
            disableBimi: true,
          }),
          timedOut,
        ])
        if (result === 'timeout')
          return { dkim: 'fail', dkimReason: `DNS lookups took longer than ${timeoutMs} ms` }
        return summarizeAuth(result)
      } catch (error) {
        return { dkim: 'fail', dkimReason: error instanceof Error ? error.message : String(error) }
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

type Summarizable = Pick<AuthenticateResult, 'dkim' | 'spf' | 'dmarc'>

/** mailauth's result, reduced to what the sink's API answers. */
export function summarizeAuth(result: Summarizable): MessageAuth {
  const signatures = result.dkim.results ?? []
  const reported = signatures.find((row) => row.status.result === 'pass') ?? signatures[0]
  const auth: MessageAuth = { dkim: 'none' }
  if (reported) {
    auth.dkim =
      reported.status.result === 'pass' ? 'pass' : reported.status.result === 'none' ? 'none' : 'fail'
    if (reported.signingDomain) auth.dkimDomain = reported.signingDomain
    if (reported.selector) auth.dkimSelector = reported.selector
    if (auth.dkim === 'fail') auth.dkimReason = reported.status.comment ?? reported.status.result
    auth.aligned = auth.dkim === 'pass' && Boolean(reported.status.aligned)
  }
  if (result.spf) {
    auth.spf = result.spf.status.result
    auth.spfDomain = result.spf.domain
  }
  if (result.dmarc) auth.dmarc = result.dmarc.status.result
  return auth
}

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) as the IPv4 address SPF compares. */
export function plainIp(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
}

/**
 * A resolver for mailauth that asks the given servers (`127.0.0.1:5300`); without servers, the
 * system's. One try with a short timeout: the sink runs next to its DNS server.
 */
export function dnsResolver(servers: readonly string[] | undefined): DNSResolver {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 })
  if (servers && servers.length > 0) resolver.setServers([...servers])
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>
}
