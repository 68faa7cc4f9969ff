import { randomUUID } from 'node:crypto'
import {
  type ReceiverFault,
  type ReceiverFaultSpec,
  ReceiverFaultTable,
  type ReceiverIdentity,
} from './receiver-faults'

/** The longest a fault may hold a reply back; long enough to trip any client timeout, short enough to end. */
export const MAX_FAULT_DELAY_MS = 120_000

/** What a client asks for with `POST /faults`, after validation (match lowercased, reply trimmed). */
export interface FaultSpec {
  /** `user@example.com` for one address or `@example.com` for a whole domain. */
  match: string
  /** A 4xx/5xx SMTP reply such as `451 4.7.1 try later`. */
  reply?: string
  /** How many messages the fault applies to; absent means until cleared. */
  times?: number
  /** Wait this long before answering (then reply, drop or accept). */
  delayMs?: number
  /** Close the connection instead of answering. */
  drop?: boolean
  /**
   * Store the message, then close the connection without answering: the server has the mail and the
   * client never hears so (a reply lost to a timeout or a reset after DATA). The outcome is unknown.
   */
  dropAfterData?: boolean
  /**
   * Accept and store the message, then, `delayMs` later, send a delivery status notification (RFC
   * 3464) with this status (`5.1.1`: failed, `4.2.2`: delayed) to its envelope sender: a bounce that a
   * relay sends after it accepted the mail, as a remote MTA does.
   */
  bounce?: string
  /** Accept and store the message, then, `delayMs` later, send an ARF abuse report (RFC 5965) about it. */
  complaint?: boolean
}

/** Faults whose effect comes after the `250`: a notification sent to the envelope sender. */
export type NotificationFault = Fault & ({ bounce: string } | { complaint: true })

export interface Fault extends FaultSpec {
  id: string
}

export type ParseResult<T> =
  | { ok: true; value: T }
  /** `field`: the body field at fault, when one is (answered as `details: [{ path }]`). */
  | { ok: false; message: string; field?: string }

const FIELDS = new Set(['match', 'reply', 'times', 'delayMs', 'drop', 'dropAfterData', 'bounce', 'complaint'])
const ADDRESS = /^[^\s@]+@[^\s@]+$/
const DOMAIN = /^@[^\s@]+$/
// A 4xx/5xx code, one space, then text; the text may start with an enhanced status code (4.7.1).
const REPLY = /^([45]\d\d) (\S.*)$/
// An enhanced status code (RFC 3463): class 4 or 5, subject and detail of 1–3 digits without leading zeros.
const STATUS = /^[45]\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/
// A CR or LF would let the reply text inject extra SMTP lines into the session.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/

/**
 * Validates a `POST /faults` body by hand (zod is not a dependency of the sink). Every message names
 * the field and what was expected, since the caller is usually a test script whose author wants to
 * see the typo, not a generic "bad request". Unknown fields are refused for the same reason.
 */
export function parseFaultSpec(body: unknown): ParseResult<FaultSpec> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail('expected a JSON object such as {"match":"user@example.com","reply":"451 4.7.1 try later"}')
  }
  const input = body as Record<string, unknown>
  const unknown = Object.keys(input).filter((key) => !FIELDS.has(key))
  if (unknown.length > 0) {
    return fail(
      `unknown field ${unknown.map((key) => `"${key}"`).join(', ')}; allowed: ${[...FIELDS].join(', ')}`,
      unknown[0],
    )
  }

  const spec: FaultSpec = { match: '' }

  if (typeof input.match !== 'string') return fail('"match" is required: an address or "@domain"', 'match')
  const match = input.match.trim().toLowerCase()
  if (!ADDRESS.test(match) && !DOMAIN.test(match)) {
    return fail(
      `"match" must be an address such as "user@example.com" or a domain such as "@example.com"`,
      'match',
    )
  }
  spec.match = match

  if (input.reply !== undefined) {
    if (typeof input.reply !== 'string')
      return fail('"reply" must be a string such as "451 4.7.1 try later"', 'reply')
    const reply = input.reply.trim()
    if (!REPLY.test(reply) || CONTROL.test(reply)) {
      return fail(
        '"reply" must be a 4xx or 5xx code, a space and text on one line, such as "550 5.1.1 no such user"',
        'reply',
      )
    }
    spec.reply = reply
  }

  if (input.times !== undefined) {
    if (!Number.isSafeInteger(input.times) || (input.times as number) < 1) {
      return fail('"times" must be a positive integer (omit it to apply the fault until cleared)', 'times')
    }
    spec.times = input.times as number
  }

  if (input.delayMs !== undefined) {
    const delayMs = input.delayMs
    if (
      !Number.isSafeInteger(delayMs) ||
      (delayMs as number) < 0 ||
      (delayMs as number) > MAX_FAULT_DELAY_MS
    ) {
      return fail(`"delayMs" must be an integer from 0 to ${MAX_FAULT_DELAY_MS}`, 'delayMs')
    }
    spec.delayMs = delayMs as number
  }

  if (input.drop !== undefined) {
    if (typeof input.drop !== 'boolean') return fail('"drop" must be true or false', 'drop')
    spec.drop = input.drop
  }

  if (input.dropAfterData !== undefined) {
    if (typeof input.dropAfterData !== 'boolean')
      return fail('"dropAfterData" must be true or false', 'dropAfterData')
    spec.dropAfterData = input.dropAfterData
  }

  if (input.bounce !== undefined) {
    if (typeof input.bounce !== 'string' || !STATUS.test(input.bounce.trim())) {
      return fail(
        '"bounce" must be an enhanced status code with class 4 or 5, such as "5.1.1" or "4.2.2"',
        'bounce',
      )
    }
    spec.bounce = input.bounce.trim()
  }

  if (input.complaint !== undefined) {
    if (input.complaint !== true)
      return fail('"complaint" must be true (omit it for no complaint)', 'complaint')
    spec.complaint = true
  }

  if (spec.bounce !== undefined || spec.complaint === true) return notificationFault(spec)

  if (
    spec.reply === undefined &&
    spec.delayMs === undefined &&
    spec.drop !== true &&
    spec.dropAfterData !== true
  ) {
    return fail(
      'a fault needs at least one of "reply", "delayMs", "drop": true, "dropAfterData": true, "bounce" or "complaint": true',
    )
  }
  if (spec.reply !== undefined && (spec.drop === true || spec.dropAfterData === true)) {
    const field = spec.drop === true ? 'drop' : 'dropAfterData'
    return fail(
      `"reply" and "${field}" exclude each other: a dropped connection cannot carry a reply`,
      'reply',
    )
  }
  if (spec.drop === true && spec.dropAfterData === true) {
    return fail('"drop" and "dropAfterData" exclude each other: the message is either stored or not', 'drop')
  }
  return { ok: true, value: spec }
}

/**
 * A bounce or complaint fault answers `250` and stores the message, so it excludes everything that
 * changes the reply; its `delayMs` is the wait before the notification, not before the reply.
 */
function notificationFault(spec: FaultSpec): ParseResult<FaultSpec> {
  const field = spec.bounce !== undefined ? 'bounce' : 'complaint'
  if (spec.bounce !== undefined && spec.complaint === true) {
    return fail('"bounce" and "complaint" exclude each other: add two faults for both', 'bounce')
  }
  for (const other of ['reply', 'drop', 'dropAfterData'] as const) {
    if (spec[other] !== undefined && spec[other] !== false) {
      return fail(
        `"${field}" and "${other}" exclude each other: a ${field} fault accepts the message with 250`,
        other,
      )
    }
  }
  return { ok: true, value: spec }
}

/** Whether a fault asks for a notification after the message is accepted. */
export function isNotificationFault(fault: Fault): fault is NotificationFault {
  return fault.bounce !== undefined || fault.complaint === true
}

/** Splits a validated reply into what smtp-server needs: the code, and the text it writes after it. */
export function splitReply(reply: string): { code: number; text: string } {
  const parsed = REPLY.exec(reply)
  if (!parsed?.[1] || !parsed[2]) throw new Error(`not a valid SMTP reply: ${reply}`)
  return { code: Number(parsed[1]), text: parsed[2] }
}

/** Whether a fault's `match` covers a (lowercased) recipient address. */
export function matches(match: string, recipient: string): boolean {
  if (match.startsWith('@')) return recipient.slice(recipient.lastIndexOf('@')) === match
  return recipient === match
}

/**
 * The active faults, oldest first. Lookup and countdown happen in one synchronous call so two
 * messages finishing at the same time cannot both consume the last `times` of a fault.
 */
export class FaultTable {
  private faults: Fault[] = []
  /** The faults of whole receivers (`{ "receiver", … }`), each with the windows it counts in. */
  readonly receivers: ReceiverFaultTable

  /** `receivers`: the receivers the sink plays, so a fault naming another is refused when added. */
  constructor(options: { receivers?: () => readonly ReceiverIdentity[]; now?: () => number } = {}) {
    this.receivers = new ReceiverFaultTable(options.receivers ?? (() => []), options.now)
  }

  /** A per-message fault, or (with `receiver`) a receiver fault; the latter throws UnknownReceiverError for a receiver the sink does not play. */
  add(spec: FaultSpec): Fault
  add(spec: ReceiverFaultSpec): ReceiverFault
  add(spec: FaultSpec | ReceiverFaultSpec): Fault | ReceiverFault {
    if ('receiver' in spec) return this.receivers.add(spec)
    const fault: Fault = { id: randomUUID(), ...spec }
    this.faults.push(fault)
    return { ...fault }
  }

  /** The per-message faults; `receivers.list()` has the receiver faults. */
  list(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }))
  }

  /** Removes every fault (receiver faults too) and says how many there were. */
  clear(): number {
    const count = this.faults.length
    this.faults = []
    return count + this.receivers.clear()
  }

  /**
   * Finds the oldest fault covering any of the recipients, counts one use against it (removing it at
   * zero) and returns a copy as it was applied. Undefined when no fault matches.
   */
  take(recipients: readonly string[]): Fault | undefined {
    const lowered = recipients.map((recipient) => recipient.toLowerCase())
    const index = this.faults.findIndex((fault) =>
      lowered.some((recipient) => matches(fault.match, recipient)),
    )
    const fault = this.faults[index]
    if (!fault) return undefined
    const applied = { ...fault }
    if (fault.times !== undefined) {
      fault.times -= 1
      if (fault.times <= 0) this.faults.splice(index, 1)
    }
    return applied
  }
}

function fail(message: string, field?: string): ParseResult<never> {
  return field === undefined ? { ok: false, message } : { ok: false, message, field }
}
