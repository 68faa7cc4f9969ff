import { OutcomeUnknownSendError } from '@fairlane/core/delivery'
import { PermanentSendError, TransientSendError, toSendError } from '@fairlane/mail/smtp-errors'

/**
 * Where in an SMTP session a delivery failed: `connect` (TCP), `greeting` (the banner and EHLO),
 * `tls` (STARTTLS), `envelope` (MAIL FROM, RCPT TO), `data` (the DATA command, the body, its reply).
 * `dns` and `policy` are failures before any connection: the lookup, or an address refused by
 * Fairlane itself (a private one). Matches `classifyConnectionFailure`'s phases, plus those two.
 */
export type SmtpPhase = 'dns' | 'policy' | 'connect' | 'greeting' | 'tls' | 'envelope' | 'data'

/** An SMTP reply as the server wrote it: `421 4.7.28 … unusual rate …` → 421, "4.7.28", the text. */
export interface SmtpReply {
  code: number
  /** The RFC 3463 enhanced status code, when the reply carried one. */
  enhanced?: string
  /** The reply's text after the codes (lines of a multi-line reply joined with "\n"). */
  text: string
}

/** One address tried for a message, and how it failed. */
export interface MxAttempt {
  host: string
  address: string
  phase: SmtpPhase
  reply?: SmtpReply
  message: string
}

/**
 * What an MX delivery failure says beyond its kind: the phase and the reply of the attempt that
 * decided it (the last one), and every address tried, so the caller can tell a provider's throttling
 * (`421 4.7.28` at DATA, a drop at greeting) from a refusal of this one message.
 */
export interface MxFailureDetails {
  /** The recipient domain, as looked up (A-label). */
  domain: string
  phase: SmtpPhase
  reply?: SmtpReply
  host?: string
  address?: string
  attempts: MxAttempt[]
}

/**
 * The three send failures the send use case knows (`send-failure.ts`), each carrying `smtp`. Thrown
 * as the existing classes, so `isSendFailure`, `isPermanentFailure` and `instanceof` keep working.
 */
export type MxSendFailure = (TransientSendError | PermanentSendError | OutcomeUnknownSendError) & {
  readonly smtp: MxFailureDetails
}

export function isMxSendFailure(error: unknown): error is MxSendFailure {
  return (
    (error instanceof TransientSendError ||
      error instanceof PermanentSendError ||
      error instanceof OutcomeUnknownSendError) &&
    typeof (error as { smtp?: unknown }).smtp === 'object'
  )
}

export function withDetails<T extends TransientSendError | PermanentSendError | OutcomeUnknownSendError>(
  error: T,
  details: MxFailureDetails,
): T & { readonly smtp: MxFailureDetails } {
  return Object.assign(error, { smtp: details })
}

const REPLY = /^([2-5]\d\d)(?:[ -]([245]\.\d{1,3}\.\d{1,3})\b)?[ -]?/

/**
 * Reads a reply as nodemailer hands it over (`response`: lines joined with "\n", each with its
 * code). Undefined when the text does not start with a reply code.
 */
export function parseReply(response: unknown): SmtpReply | undefined {
  if (typeof response !== 'string') return undefined
  const lines = response.trim().split(/\r?\n/)
  const first = REPLY.exec(lines[0] ?? '')
  if (!first) return undefined
  const text = lines.map((line) => line.replace(REPLY, '').trim()).join('\n')
  return { code: Number(first[1]), ...(first[2] ? { enhanced: first[2] } : {}), text }
}

/** The reply an error from nodemailer's SMTP connection carries, if the server answered. */
export function replyOf(error: unknown): SmtpReply | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  return parseReply((error as { response?: unknown }).response)
}

/** The message of an error as it goes into an attempt's record. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * A failed attempt as the send use case needs it: transient, permanent or outcome unknown by the
 * existing rules (`toSendError`: a reply decides, a failure without one after the body was handed
 * off is outcome unknown), with the details.
 */
export function toMxSendFailure(
  error: unknown,
  context: { bodyHandedOff: boolean; details: MxFailureDetails },
): MxSendFailure {
  return withDetails(toSendError(error, { bodyHandedOff: context.bodyHandedOff }), context.details)
}
