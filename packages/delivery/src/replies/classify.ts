/**
 * What a receiver's reply means for the shaping: slow the provider down (throttle), retry this one
 * message (recipient-temporary, temporary), give up on it (permanent) or nothing (accepted).
 *
 * The rules, in the order they are tried:
 * 1. `2xx` → accepted; `5xx` → permanent (this message fails; a 5xx block is not a rate signal).
 * 2. Texts about one recipient — greylisting, a full mailbox (`452 4.2.2`), Gmail's "receiving mail
 *    at a rate" (`450 4.2.1`) — → recipient-temporary: retry that message alone, the provider's
 *    pace is fine. Greylisting comes before the `451 4.7.x` rule because it uses the same code.
 * 3. Texts about this message rather than about our rate — Gmail's `4.7.26` (unauthenticated:
 *    slowing every tenant does not authenticate this one) and its "suspicious due to the nature of
 *    the content" — → temporary.
 * 4. `421` (any text: the server closes the channel), `451 4.7.x`, and the known throttle texts
 *    of Gmail, Microsoft, Yahoo and Apple → throttle, with the scope the text names: Gmail's
 *    `4.7.28` says whether the IP, the DKIM domain, the SPF (envelope) domain or a URL domain is
 *    the cause, and names the domain when it can; Microsoft's and Yahoo's texts name the IP, and
 *    Apple's "deferred due to excessive volume" is read as the IP's too (it names a recipient, but
 *    it is a 421 that closes the connection, and Apple describes it as a per-sender rate limit).
 *    A throttle reply whose text names nothing known has scope `unknown` (the caller slows the
 *    whole egress address × provider, as for `ip`).
 * 5. Any other `4xx` → temporary.
 *
 * Texts are matched after folding SMTP's multi-line form (`421-4.7.28 …\r\n421 4.7.28 …`, which
 * some logs flatten into one line with the prefixes inline) into one line of words.
 */

export type ThrottleScope =
  | { kind: 'ip' }
  | { kind: 'dkim-domain' | 'envelope-domain' | 'url-domain' | 'from-domain'; domain?: string }
  | { kind: 'unknown' }

export type ReplyClass =
  | { kind: 'accepted' }
  | { kind: 'throttle'; scope: ThrottleScope }
  | { kind: 'recipient-temporary' }
  | { kind: 'permanent' }
  | { kind: 'temporary' }

export type SmtpReply = {
  /** The three-digit reply code. */
  code: number
  /** The enhanced status code (`4.7.28`, RFC 3463) when the caller parsed it; read from the text otherwise. */
  enhanced?: string
  text: string
}

/** Where in an SMTP session a connection failed without a reply. */
export type ConnectionPhase = 'connect' | 'greeting' | 'tls' | 'envelope' | 'data'

const ENHANCED = /^([245])\.(\d{1,3})\.(\d{1,3})$/

/** Texts about one recipient; the rest of the provider's mail is not the problem. */
const RECIPIENT_TEMPORARY: RegExp[] = [
  /gr[ea]y-?list/i,
  /\bover quota\b|\bmailbox (?:is )?full\b|out of storage space|insufficient (?:system )?storage/i,
  // Gmail 450 4.2.1: "The user you are trying to contact is receiving mail at a rate that prevents…"
  /user you are trying to contact is receiving (?:e-?mail|mail) (?:at a rate|too quickly)/i,
]

/** Texts about this one message (its authentication, its content), not about our rate. */
const MESSAGE_TEMPORARY: RegExp[] = [/\bunauthenticated\b/i, /suspicious due to the nature of the content/i]

/** Throttle texts that name the sending address (or, for Gmail, its netblock). */
const IP_THROTTLE: RegExp[] = [
  // Gmail 421 4.7.28 / 4.7.0
  /unusual rate of (?:unsolicited )?mail originating from your IP (?:address|netblock)/i,
  /very low reputation of the sending IP/i,
  // Microsoft 451 4.7.650 / 4.7.651
  /temporarily rate limited due to IP reputation/i,
  // Microsoft 451 4.7.500 "Server busy. Please try again later from [1.2.3.4]. (S77719)"
  /server busy\. please try again later/i,
  // Microsoft 421 4.3.2
  /maximum number of concurrent (?:server )?connections/i,
  // Yahoo 421 4.7.0 [TSS04] / [TSS05] / [TS02] "Messages from x temporarily deferred…",
  // 421 4.7.1 [TS03] "All messages from x permanently deferred", 421 "Message from x temporarily deferred"
  /messages? from \S+ (?:temporarily|permanently) deferred/i,
  // Apple 421 4.7.1 "Messages to … deferred due to excessive volume"
  /deferred due to excessive volume/i,
]

/**
 * Classifies one reply. Throws on a code that is not an SMTP reply code, so a caller passing
 * something else (an errno, an HTTP status) finds out at once.
 */
export function classifyReply(reply: SmtpReply): ReplyClass {
  const { code } = reply
  if (!Number.isInteger(code) || code < 200 || code > 599) {
    throw new RangeError(`classifyReply: ${code} is not an SMTP reply code (200-599)`)
  }
  if (code < 300) return { kind: 'accepted' }
  if (code >= 500) return { kind: 'permanent' }
  if (code < 400) return { kind: 'temporary' } // 3xx as a final reply: the server lost its place

  const enhanced = enhancedCodeOf(reply)
  const text = foldReplyText(reply.text, code, enhanced)

  if (RECIPIENT_TEMPORARY.some((pattern) => pattern.test(text))) return { kind: 'recipient-temporary' }
  if (enhanced === '4.2.2') return { kind: 'recipient-temporary' }
  if (enhanced === '4.7.26' || MESSAGE_TEMPORARY.some((pattern) => pattern.test(text))) {
    return { kind: 'temporary' }
  }

  const named = namedScope(text)
  if (named !== undefined) return { kind: 'throttle', scope: named }
  if (code === 421 || (code === 451 && enhanced?.startsWith('4.7.'))) {
    return { kind: 'throttle', scope: { kind: 'unknown' } }
  }
  return { kind: 'temporary' }
}

/**
 * A connection that failed without a reply. Refused or dropped before the greeting is how busy
 * receivers shed load, so it throttles the provider; a failed TLS handshake, or a connection lost
 * after the greeting (mid-envelope, or a data-phase timeout), is this attempt's problem.
 */
export function classifyConnectionFailure(phase: ConnectionPhase): ReplyClass {
  switch (phase) {
    case 'connect':
    case 'greeting':
      return { kind: 'throttle', scope: { kind: 'ip' } }
    case 'tls':
    case 'envelope':
    case 'data':
      return { kind: 'temporary' }
    default: {
      const unknown: never = phase
      throw new RangeError(`classifyConnectionFailure: unknown phase "${String(unknown)}"`)
    }
  }
}

/** The throttle scope a known text names, or `undefined` when it names none. */
function namedScope(text: string): ThrottleScope | undefined {
  const dkim = /unusual rate of (?:unsolicited )?mail (?:originating from|signed with) your DKIM domain/i
  if (dkim.test(text) || /signed with (?:the )?DKIM domain/i.test(text)) {
    return withDomain('dkim-domain', domainAfter(text, /DKIM domain/i))
  }
  // Gmail's "SPF domain" is the envelope sender's (MAIL FROM) domain.
  if (
    /(?:from|with) your (?:SPF|envelope|MAIL FROM) domain|\b(?:SPF|envelope|MAIL FROM) domain \[/i.test(text)
  ) {
    return withDomain('envelope-domain', domainAfter(text, /(?:SPF|envelope|MAIL FROM) domain/i))
  }
  if (/containing (?:one of your|a) URL domains?|\bURL domain\b/i.test(text)) {
    return withDomain('url-domain', domainAfter(text, /URL domains?/i))
  }
  if (/(?:header )?From: domain|your From domain/i.test(text)) {
    return withDomain('from-domain', domainAfter(text, /From:? domain/i))
  }
  if (IP_THROTTLE.some((pattern) => pattern.test(text))) return { kind: 'ip' }
  return undefined
}

function withDomain(
  kind: 'dkim-domain' | 'envelope-domain' | 'url-domain' | 'from-domain',
  domain: string | undefined,
): ThrottleScope {
  return domain === undefined ? { kind } : { kind, domain }
}

/**
 * The domain written right after `marker`, bracketed or not: Gmail writes `DKIM domain
 * [example.com 15]`, and sometimes `[ 15]` with the domain left out (then `undefined`).
 */
function domainAfter(text: string, marker: RegExp): string | undefined {
  const found = marker.exec(text)
  if (found === null) return undefined
  const rest = text.slice(found.index + found[0].length)
  const match =
    /^\s*\[?\s*([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)/.exec(
      rest,
    )
  const candidate = match?.[1]?.toLowerCase()
  // A domain has a letter in its last label; `15` or an address is not one.
  if (candidate === undefined || !/[a-z]/.test(candidate.split('.').at(-1) ?? '')) return undefined
  return candidate
}

function enhancedCodeOf(reply: SmtpReply): string | undefined {
  const given = reply.enhanced?.trim()
  if (given !== undefined && given !== '') return ENHANCED.test(given) ? given : undefined
  const prefix = new RegExp(`^\\s*(?:${reply.code}[ -])?\\s*([245]\\.\\d{1,3}\\.\\d{1,3})\\b`)
  return prefix.exec(reply.text)?.[1]
}

/** Removes the `421-4.7.28 ` continuation prefixes, wherever they stand, and folds whitespace. */
function foldReplyText(text: string, code: number, enhanced: string | undefined): string {
  const codePart = `${code}[ -]`
  const enhancedPart =
    enhanced === undefined ? '(?:[245]\\.\\d{1,3}\\.\\d{1,3}\\s)?' : `(?:${escapeRegExp(enhanced)}\\s?)?`
  return text
    .replace(new RegExp(`(^|\\s)${codePart}${enhancedPart}`, 'g'), '$1')
    .replace(/\s+/g, ' ')
    .trim()
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
