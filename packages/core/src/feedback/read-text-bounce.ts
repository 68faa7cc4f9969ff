import type { BounceRecipient, FeedbackMail } from './feedback-mail'
import { headerValue, subjectLine } from './feedback-mail'
import { reportAddress } from './report-fields'
import { sanitiseOptional } from './sanitise-text'
import { classifyBounce, findReplyCode, statusFromReplyCode } from './status-code'

/**
 * Bounces written as prose, without a `message/delivery-status` part: qmail ("Hi. This is the
 * qmail-send program"), Exim ("This message was created automatically by mail delivery software",
 * with `X-Failed-Recipients`), Postfix configured without DSNs ("This is the mail system at host"),
 * Yahoo's "Sorry, we were unable to deliver your message" with a bare `554`, and the headers
 * every MTA's bounce carries (From MAILER-DAEMON or postmaster, a "failure notice" subject).
 */

// Patterns here run on text an outsider writes: none has an unbounded run between two literals
// (Exim's "Warning: message <id> delayed" takes an id of at most 64 characters), and headers are cut
// to MAX_HEADER_CHARS, so a long subject or opening costs linear time.

/** Written by the mail system itself; an out-of-office never comes from these. */
const DAEMON_SENDER = /(^|[\s<"])(mailer-daemon|postmaster|mail delivery (subsystem|system))\b/i
const BOUNCE_OPENINGS =
  /(qmail-send program|created automatically by mail delivery software|this is the mail system at host|unable to deliver your message|could not be delivered to one or more|delivery to the following recipients? (failed|has been delayed)|delivery has failed to these recipients|your message (couldn't|could not|wasn't|was not) (be )?delivered|message not delivered|has not yet been delivered)/i
const BOUNCE_SUBJECT =
  /(undeliver(ed|able)|delivery (status notification|failure|has failed|failed|incomplete|delayed)|returned mail|failure notice|mail delivery (failed|failure)|could not be delivered|not delivered|non-?delivery|warning: message \S{1,64} delayed|delayed mail)/i

const PERMANENT =
  /(this is a permanent error|permanent (error|failure|fatal errors?)|permanently rejected|given up|giving up|retry timeout exceeded)/i
const TEMPORARY =
  /(this is a temporary error|temporary (error|failure|problem)|has not yet been delivered|delivery attempts will continue|will (continue to )?(retry|try)|still trying|been delayed|delayed \d+ (hours?|minutes?|days?))/i

export type BounceEvidence = 'strong' | 'subject' | 'none'

/** How sure the headers and opening are that this is a bounce (a subject alone is weaker). */
export function bounceEvidence(mail: FeedbackMail): BounceEvidence {
  const from = headerValue(mail, 'from') ?? ''
  if (DAEMON_SENDER.test(from) || headerValue(mail, 'x-failed-recipients') !== undefined) return 'strong'
  if (BOUNCE_OPENINGS.test(mail.text.slice(0, 4_000))) return 'strong'
  return BOUNCE_SUBJECT.test(subjectLine(mail)) ? 'subject' : 'none'
}

/**
 * The failure a prose bounce describes: its first enhanced status code (4.x.x or 5.x.x), else an
 * SMTP reply code where a server's answer sits, else "permanent"/"temporary" as qmail and Exim word
 * it. Undefined when it says none of these: such a bounce is unparseable, never guessed hard.
 */
export function readTextBounce(mail: FeedbackMail): BounceRecipient | undefined {
  const text = mail.text.slice(0, 64_000)
  const found = findFailure(text)
  if (!found) return undefined
  const delayed = found.status.startsWith('4.') && TEMPORARY.test(text)
  const action = delayed ? 'delayed' : 'failed'
  const kind = classifyBounce(found.status, action)
  if (kind === null) return undefined
  const recipient: BounceRecipient = { action, status: found.status, kind }
  const diagnostic = sanitiseOptional(found.line)
  if (diagnostic) recipient.diagnostic = diagnostic
  const failed = failedRecipient(mail, text)
  if (failed) recipient.finalRecipient = failed
  return recipient
}

function findFailure(text: string): { status: string; line: string } | undefined {
  const lines = text.split(/\r?\n/)
  for (const [index, line] of lines.entries()) {
    for (const match of line.matchAll(/(?<![\d.])([45])\.(\d{1,3})\.(\d{1,3})(?![\d.]*\d)/g)) {
      return { status: `${match[1]}.${Number(match[2])}.${Number(match[3])}`, line: context(lines, index) }
    }
  }
  for (const [index, line] of lines.entries()) {
    const code = findReplyCode(line)
    if (code !== undefined) {
      const around = context(lines, index)
      return { status: statusFromReplyCode(code, around), line: around }
    }
  }
  for (const [index, line] of lines.entries()) {
    if (PERMANENT.test(line)) return { status: statusFromReplyCode(500, text), line: context(lines, index) }
    if (TEMPORARY.test(line)) return { status: statusFromReplyCode(400, text), line: context(lines, index) }
  }
  return undefined
}

/** The line, and the next when the reply continues there (qmail and Exim wrap long replies). */
function context(lines: readonly string[], index: number): string {
  const line = lines[index] ?? ''
  const next = lines[index + 1]
  if (next !== undefined && /^\s+\S/.test(next) && line.length < 400) return `${line.trim()} ${next.trim()}`
  return line.trim()
}

function failedRecipient(mail: FeedbackMail, text: string): string | undefined {
  const header = headerValue(mail, 'x-failed-recipients')
  if (header) return reportAddress(header.split(',')[0])
  const bracketed = /<([^\s<>@]+@[^\s<>@]+)>/.exec(text)
  return reportAddress(bracketed?.[1])
}
