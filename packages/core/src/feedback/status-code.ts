/**
 * Enhanced mail system status codes (RFC 3463): `class.subject.detail`, class 2 (success), 4
 * (persistent transient failure) or 5 (permanent failure), subject and detail up to three digits
 * (Microsoft's `5.1.10`).
 */
const STATUS = /(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.]*\d)/
const STATUS_AT_START = /^\s*([245])\.(\d{1,3})\.(\d{1,3})(?!\.?\d)/

/** What an MTA did for a recipient (RFC 3464 §2.3.3). */
export const DSN_ACTIONS = ['failed', 'delayed', 'delivered', 'relayed', 'expanded'] as const
export type DsnAction = (typeof DSN_ACTIONS)[number]

export type BounceKind = 'hard' | 'soft'

/** A `Status:` field's code (`5.1.1 (user unknown)` → `5.1.1`), or undefined when it holds none. */
export function statusFromField(value: string): string | undefined {
  const match = STATUS_AT_START.exec(value)
  return match ? `${match[1]}.${Number(match[2])}.${Number(match[3])}` : undefined
}

/** The first enhanced status code anywhere in a text (an SMTP reply, a bounce's prose). */
export function findStatusCode(text: string): string | undefined {
  const match = STATUS.exec(text)
  return match ? `${match[1]}.${Number(match[2])}.${Number(match[3])}` : undefined
}

/**
 * An SMTP reply code (`550`, `452`) written as a server's answer: at the start of a line or after a
 * colon or `said`, followed by a space, a dash, a colon or the end. Numbers in prose ("500 messages")
 * do not count unless they sit where a reply code sits.
 */
const REPLY_CODE =
  /(?:^|[:;(]\s*|\bsaid:?\s+|\breplied:?\s+|\berror:?\s+|\bresponse:?\s+|\bhost\s+\S+\s+)([45][0-5]\d)(?=[\s:-]|$)/im

export function findReplyCode(text: string): number | undefined {
  const match = REPLY_CODE.exec(text)
  return match ? Number(match[1]) : undefined
}

/**
 * A status for a reply code alone: the class from the code, the subject from what the text says
 * (an unknown mailbox is `x.1.1`, a full one `x.2.2`), else `x.0.0`.
 */
export function statusFromReplyCode(code: number, text: string): string {
  const statusClass = Math.floor(code / 100)
  if (UNKNOWN_MAILBOX.test(text)) return `${statusClass}.1.1`
  if (FULL_MAILBOX.test(text)) return `${statusClass}.2.2`
  return `${statusClass}.0.0`
}

const UNKNOWN_MAILBOX =
  /\b(user unknown|unknown user|no such (user|mailbox|recipient)|does not exist|doesn't exist|doesn't have an? \S+ account|recipient not found|invalid (recipient|mailbox)|mailbox unavailable|address rejected|no mailbox here)\b/i
const FULL_MAILBOX =
  /\b(mailbox (is )?full|over ?quota|quota exceeded|exceeded (its|the) quota|insufficient storage)\b/i

/**
 * Hard or soft, or null when it is no failure at all (a success status, `delivered`, `relayed`,
 * `expanded`). Hard: a permanent status (5.x.x) that the MTA gave up on. Soft: a transient status
 * (4.x.x), or any delay. One exception to the class: `5.2.2` (mailbox full) is soft, as mailbox
 * providers and sending services treat it: the address exists, and suppressing it for good after one
 * full inbox would lose a reader.
 */
export function classifyBounce(status: string, action: DsnAction): BounceKind | null {
  if (action === 'delivered' || action === 'relayed' || action === 'expanded') return null
  if (status.startsWith('2.')) return null
  if (action === 'delayed' || status.startsWith('4.')) return 'soft'
  if (/^5\.2\.2$/.test(status)) return 'soft'
  return 'hard'
}

/** The action a status implies when the report names none. */
export function actionForStatus(status: string): DsnAction {
  if (status.startsWith('2.')) return 'delivered'
  return status.startsWith('4.') ? 'delayed' : 'failed'
}

export function isDsnAction(value: string): value is DsnAction {
  return (DSN_ACTIONS as readonly string[]).includes(value)
}
