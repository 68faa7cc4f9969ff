/**
 * MX host patterns of the receiver rules: an exact host name (`mx01.mail.icloud.com`) or `*.suffix`
 * (`*.google.com`: any host below google.com, not google.com itself). Host names compare without
 * case and without the trailing dot DNS answers may carry.
 */

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** `Mx.Google.COM.` → `mx.google.com`. */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '')
}

export function normalizeHostPattern(pattern: string): string {
  return normalizeHost(pattern)
}

/** Why a pattern is unusable, or `undefined` when it is a host name or `*.suffix`. */
export function hostPatternProblem(pattern: string): string | undefined {
  const normalized = normalizeHostPattern(pattern)
  const expected = `expected a host name or *.suffix such as *.google.com; got "${pattern}"`
  const name = normalized.startsWith('*.') ? normalized.slice(2) : normalized
  const labels = name.split('.')
  if (name.length > 253 || !labels.every((label) => LABEL.test(label))) return expected
  // `*.com` would roll every .com receiver into one provider: surely a mistake.
  if (labels.length < 2) return `${expected} (at least two labels)`
  if (/^\d+$/.test(labels.at(-1) ?? '')) return `${expected} (an IP address is not an MX host name)`
  return undefined
}

/** Whether a normalized host matches a normalized pattern. */
export function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1))
  return host === pattern
}
