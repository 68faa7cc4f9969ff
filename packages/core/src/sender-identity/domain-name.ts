import { domainToASCII } from 'node:url'
import { parse } from 'tldts'

/**
 * A sending domain must be a name a tenant can publish DNS records under: a registrable domain
 * (`example.com`, `example.co.uk`) or a name below one (`mail.example.com`). Refused: IP addresses,
 * `localhost` and names under it (RFC 6761: they resolve to this machine), single labels, public
 * suffixes (`com`, `co.uk`, and private ones such as `github.io`, where nobody but the operator of
 * the suffix controls DNS), and anything DNS cannot carry (over 253 characters, a label over 63,
 * characters other than letters, digits and inner hyphens).
 *
 * The name is normalised so that one domain has one spelling in the database: lowercase, no
 * trailing dot, internationalised names as punycode (`bücher.de` → `xn--bcher-kva.de`).
 */
export type DomainNameCheck = { ok: true; name: string } | { ok: false; message: string }

const MAX_NAME = 253
const MAX_LABEL = 63
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/
const IP_LIKE = /^\[.*\]$|^[0-9.]+$|:/

export function checkDomainName(input: string): DomainNameCheck {
  const trimmed = input.trim().replace(/\.$/, '')
  if (trimmed === '') return refuse('is empty')
  if (trimmed.length > 4 * MAX_NAME) return refuse(`is longer than ${MAX_NAME} characters`)
  const shown = JSON.stringify(trimmed)
  if (IP_LIKE.test(trimmed) || parse(trimmed).isIp)
    return refuse(`${shown} is an IP address, not a domain name`)
  // Checked before IDN conversion, which would otherwise decode `%61` to `a` or drop some characters.
  const invalid = [...trimmed].find((char) => char.charCodeAt(0) < 0x80 && !/[a-zA-Z0-9.-]/.test(char))
  if (invalid !== undefined)
    return refuse(`${shown} contains an invalid character ${JSON.stringify(invalid)}`)
  // The URL parser refuses these without saying why; no top-level domain is all digits.
  if (/\.[0-9]+$/.test(trimmed)) return refuse(`${shown} has a numeric top-level domain`)
  const name = domainToASCII(trimmed)
  if (name === '') return refuse(`${shown} is not a valid domain name`)
  // The URL parser reads `0x7f.1` as 127.0.0.1: an IP address in disguise.
  if (IP_LIKE.test(name)) return refuse(`${shown} is an IP address, not a domain name`)
  if (name.length > MAX_NAME) return refuse(`${shown} is longer than ${MAX_NAME} characters`)
  const labels = name.split('.')
  const long = labels.find((label) => label.length > MAX_LABEL)
  if (long !== undefined) return refuse(`${shown} has a label longer than ${MAX_LABEL} characters`)
  const bad = labels.find((label) => !LABEL.test(label))
  if (bad !== undefined) {
    return refuse(
      `${shown} has an invalid label ${JSON.stringify(bad)} (letters, digits and inner hyphens only)`,
    )
  }
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return refuse(`${shown} is a local name, not a public domain`)
  }
  if (labels.length < 2) return refuse(`${shown} is a single label; use a domain such as example.com`)
  const parsed = parse(name, { allowPrivateDomains: true })
  if (parsed.domain === null || parsed.publicSuffix === name) {
    return refuse(`${shown} is a public suffix; use a domain registered under it, such as example.${name}`)
  }
  return { ok: true, name }
}

function refuse(reason: string): DomainNameCheck {
  return { ok: false, message: `domain name ${reason}` }
}
