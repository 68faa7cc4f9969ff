import { OutcomeUnknownSendError } from '@fairlane/core/delivery'
import type { SendErrorClassification } from './classification'
import { PermanentSendError } from './permanent-send-error'
import { TransientSendError } from './transient-send-error'

/**
 * Network and client-side failure codes that say nothing about the message itself: Node's socket
 * and DNS errors, and nodemailer's connection-level codes (it wraps ECONNREFUSED as ESOCKET with
 * `originalCode`). The same message can go through once the network or the server recovers.
 */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ESOCKET',
  'ECONNECTION',
  'EDNS',
  'ETLS',
  'EPROTOCOL',
  'EABORT',
  'EMAXLIMIT',
  'EAUTH',
  'ENOAUTH',
])

/** Client-side refusals of the message itself (no server reply): retrying sends the same bad input. */
const PERMANENT_CODES = new Set(['EENVELOPE', 'EMESSAGE', 'EMAXRECIPIENTS'])

/**
 * Replies to these commands are about our session (greeting, login, TLS), not about this message:
 * a 535 to AUTH means our credentials are wrong, which a retry after the operator fixes them cures,
 * and which must not dead-letter every message in flight as if each recipient had refused it.
 */
const SESSION_COMMANDS = /^(CONN|EHLO|HELO|LHLO|AUTH|STARTTLS|API)\b/i

/**
 * RFC 3463 codes meaning "this recipient address is wrong": 5.1.0 other address status, 5.1.1 bad
 * mailbox, 5.1.2 bad destination system, 5.1.3 bad address syntax, 5.1.6 mailbox moved, 5.1.10
 * null MX. Sender-side address codes (5.1.7, 5.1.8) are deliberately absent.
 */
const UNKNOWN_RECIPIENT_CODES = new Set(['5.1.0', '5.1.1', '5.1.2', '5.1.3', '5.1.6', '5.1.10'])

/** Servers without enhanced codes still say it in words; only these words, never "mailbox unavailable". */
const UNKNOWN_RECIPIENT_TEXT =
  /\b(user unknown|unknown user|no such (user|mailbox|recipient|address)|unknown recipient|recipient unknown|recipient not found|(mailbox|address|account|user) does not exist|invalid recipient)\b/i

const REPLY = /^(\d{3})[ -](?:(\d\.\d{1,3}\.\d{1,3})\b)?/

interface ErrorFields {
  message: string
  codes: string[]
  responseCode?: number
  response?: string
  command?: string
}

/**
 * Decides whether a failed send is worth retrying. SMTP 4xx replies, connection errors, DNS errors
 * and timeouts are transient; 5xx replies about the message are permanent, and unknown-recipient
 * answers also ask for the address to be suppressed. Anything unrecognised counts as transient: a
 * retry that fails again still ends in the dead-letter queue, while a wrong "permanent" would drop
 * a deliverable message after one try.
 */
export function classifySendError(error: unknown): SendErrorClassification {
  if (error instanceof TransientSendError || error instanceof PermanentSendError) return describe(error)
  const fields = fieldsOf(error)
  const reply = fields.response ? REPLY.exec(fields.response.trim()) : null
  const responseCode = fields.responseCode ?? (reply?.[1] ? Number(reply[1]) : undefined)
  const enhancedCode = reply?.[2]
  const base = {
    message: fields.message,
    ...(responseCode !== undefined ? { responseCode } : {}),
    ...(enhancedCode !== undefined ? { enhancedCode } : {}),
  }
  if (responseCode !== undefined) return classifyReply(responseCode, enhancedCode, fields, base)
  if (fields.codes.some((code) => PERMANENT_CODES.has(code)) && !fields.codes.some(isTransientCode)) {
    return { kind: 'permanent', suppressRecipient: false, ...base }
  }
  return { kind: 'transient', suppressRecipient: false, ...base }
}

/**
 * The classification as an error to throw: `TransientSendError` or `PermanentSendError`, with the
 * cause. With `bodyHandedOff` (the message body had started to go to the server, `body-handoff.ts`),
 * a failure that carries no server reply (a timeout, a reset, a closed connection, the send
 * deadline) is `OutcomeUnknownSendError`: the server may have taken the whole message and accepted
 * it, and only its reply was lost. A reply (451 after the data, 554) is an answer and classified as
 * usual; before the hand-off nothing of the message reached the server, so nothing can be unknown.
 */
export function toSendError(
  error: unknown,
  context: { bodyHandedOff: boolean } = { bodyHandedOff: false },
): TransientSendError | PermanentSendError | OutcomeUnknownSendError {
  if (
    error instanceof TransientSendError ||
    error instanceof PermanentSendError ||
    error instanceof OutcomeUnknownSendError
  ) {
    return error
  }
  const { kind, ...classification } = classifySendError(error)
  if (context.bodyHandedOff && classification.responseCode === undefined) {
    return new OutcomeUnknownSendError(classification.message, { cause: error })
  }
  return kind === 'permanent'
    ? new PermanentSendError(classification, { cause: error })
    : new TransientSendError(classification, { cause: error })
}

function classifyReply(
  responseCode: number,
  enhancedCode: string | undefined,
  fields: ErrorFields,
  base: Omit<SendErrorClassification, 'kind' | 'suppressRecipient'>,
): SendErrorClassification {
  // 503 "bad sequence of commands" is a broken session, not a refusal of this message.
  const permanent =
    responseCode >= 500 &&
    responseCode < 600 &&
    responseCode !== 503 &&
    !SESSION_COMMANDS.test(fields.command ?? '')
  if (!permanent) return { kind: 'transient', suppressRecipient: false, ...base }
  return { kind: 'permanent', suppressRecipient: isUnknownRecipient(enhancedCode, fields.response), ...base }
}

function isUnknownRecipient(enhancedCode: string | undefined, response: string | undefined): boolean {
  if (enhancedCode !== undefined && UNKNOWN_RECIPIENT_CODES.has(enhancedCode)) return true
  // A policy code (5.7.x: spam, DMARC, blocklists) with "user unknown"-like words is still policy.
  if (enhancedCode?.startsWith('5.7.')) return false
  return UNKNOWN_RECIPIENT_TEXT.test(response ?? '')
}

function isTransientCode(code: string): boolean {
  return TRANSIENT_CODES.has(code)
}

function describe(error: TransientSendError | PermanentSendError): SendErrorClassification {
  return {
    kind: error.kind,
    suppressRecipient: error.suppressRecipient,
    message: error.message,
    ...(error.responseCode !== undefined ? { responseCode: error.responseCode } : {}),
    ...(error.enhancedCode !== undefined ? { enhancedCode: error.enhancedCode } : {}),
  }
}

/** Reads the fields nodemailer and Node put on errors, tolerating anything thrown. */
function fieldsOf(error: unknown): ErrorFields {
  if (typeof error !== 'object' || error === null) return { message: String(error), codes: [] }
  const record = error as Record<string, unknown>
  const codes = [record.code, record.originalCode].filter((code): code is string => typeof code === 'string')
  // Node 20 reports a refused dual-stack connect as an AggregateError whose parts carry the codes.
  if (Array.isArray(record.errors)) {
    for (const inner of record.errors) {
      const code = (inner as { code?: unknown } | null)?.code
      if (typeof code === 'string') codes.push(code)
    }
  }
  const message = (typeof record.message === 'string' && record.message) || codes[0] || 'unknown send failure'
  return {
    message,
    codes,
    ...(typeof record.responseCode === 'number' ? { responseCode: record.responseCode } : {}),
    ...(typeof record.response === 'string' ? { response: record.response } : {}),
    ...(typeof record.command === 'string' ? { command: record.command } : {}),
  }
}
