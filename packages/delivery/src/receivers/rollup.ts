import { domainToASCII } from 'node:url'
import { hostMatches, normalizeHost } from './host-pattern'
import type { ProviderLimits, ReceiverRules } from './rules'

/**
 * MX rollup: the receiving provider of a recipient domain, the unit that shares one budget.
 * A Google-Workspace-hosted `acme.com` (MX `aspmx.l.google.com`) is "google" like `gmail.com`,
 * because the same hosts and the same reputation system receive both.
 */
export type ProviderOfInput = {
  /** The recipient domain, in Unicode or A-label form. */
  domain: string
  /** Its MX hosts in preference order (lowest preference first), as the resolver returns them. */
  mxHosts: string[]
}

export type ReceivingProvider = { provider: string; limits: ProviderLimits }

/**
 * The first MX host (in the order given) that a rule matches decides. For one host, an exact
 * pattern beats a `*.suffix`, and a longer suffix beats a shorter one, so a narrower rule can carve
 * hosts out of a wider one whatever the order of the file. A domain none of whose hosts match
 * (including one with no MX hosts at all) is its own provider, named by its lowercase A-label,
 * with the default limits.
 */
export function providerOf(input: ProviderOfInput, rules: ReceiverRules): ReceivingProvider {
  for (const rawHost of input.mxHosts) {
    const host = normalizeHost(rawHost)
    if (host === '') continue
    const rule = bestRuleFor(host, rules)
    if (rule !== undefined) return { provider: rule.name, limits: rule.limits }
  }
  return { provider: domainProviderName(input.domain), limits: rules.default.limits }
}

function bestRuleFor(host: string, rules: ReceiverRules) {
  let best: { rule: ReceiverRules['providers'][number]; specificity: number } | undefined
  for (const rule of rules.providers) {
    for (const pattern of rule.mx) {
      if (!hostMatches(host, pattern)) continue
      // Exact names outrank every suffix; among suffixes the longer is the narrower.
      const specificity = pattern.startsWith('*.') ? pattern.length : Number.POSITIVE_INFINITY
      if (best === undefined || specificity > best.specificity) best = { rule, specificity }
    }
  }
  return best?.rule
}

/** `Bücher.Example.` → `xn--bcher-kva.example`; a name that is no domain is refused, named. */
function domainProviderName(domain: string): string {
  const trimmed = domain.trim().replace(/\.$/, '')
  const ascii = trimmed === '' ? '' : domainToASCII(trimmed)
  if (ascii === '') throw new RangeError(`providerOf: "${domain}" is not a domain name`)
  return ascii
}
