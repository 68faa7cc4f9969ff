import { randomUUID } from 'node:crypto'
import type { ParseResult } from './faults'

/** A receiving mail server the sink plays, as it listens. */
export interface ReceiverIdentity {
  name: string
  address: string
  port: number
}

/** The window of a throttle: accepted messages in the last 60 s (sliding, not calendar minutes). */
export const THROTTLE_WINDOW_MS = 60_000

export const THROTTLE_KEYS = ['source', 'dkimDomain'] as const
export type ThrottleKey = (typeof THROTTLE_KEYS)[number]

/**
 * Gmail's words when a throttle names no reply, per what it counts: `{source}` and `{dkimDomain}` in
 * any reply are replaced by the source address or the DKIM domain that hit the limit, so a sender
 * can tell (as with Gmail) which of its identities is being slowed.
 */
export const DEFAULT_THROTTLE_REPLIES: Readonly<Record<ThrottleKey, string>> = {
  source:
    '421 4.7.28 [{source}] Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited.',
  dkimDomain:
    '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your DKIM domain [{dkimDomain}]. To protect our users from spam, mail sent from your domain has been temporarily rate limited.',
}

export const TOO_MANY_CONNECTIONS_REPLY = '421 4.7.0 Too many connections'

/**
 * A fault of a whole receiver, as a real provider limits a sender: not per message but per source
 * address or per DKIM domain, over time and over connections.
 */
export interface ReceiverFaultSpec {
  /** The receiver: its name (`google`), its address (`127.0.0.10`) or `address:port`. */
  receiver: string
  /**
   * More than `perMinute` accepted messages within 60 s from one source address (`per: "source"`,
   * answered at MAIL FROM) or signed with one DKIM domain (`per: "dkimDomain"`, the `d=` of the
   * DKIM-Signature as written, answered at the end of DATA) get `reply` instead of a `250`
   * (`{source}` and `{dkimDomain}` in it are filled in; default DEFAULT_THROTTLE_REPLIES).
   */
  throttle?: { perMinute: number; per: ThrottleKey; reply?: string }
  /** Concurrent connections one source address may hold; the next is refused at greeting with `421 4.7.0`. */
  maxConnections?: number
  /** Wait this long before the `220` greeting of every connection. */
  greetingDelayMs?: number
}

/** A receiver fault as added: validated, its receiver lowercased, a throttle's reply filled in. */
export interface ReceiverFault extends ReceiverFaultSpec {
  id: string
  throttle?: { perMinute: number; per: ThrottleKey; reply: string }
}

type ValidReceiverFaultSpec = Omit<ReceiverFault, 'id'>

const FIELDS = new Set(['receiver', 'throttle', 'maxConnections', 'greetingDelayMs'])
const THROTTLE_FIELDS = new Set(['perMinute', 'per', 'reply'])
const MAX_PER_MINUTE = 1_000_000
const MAX_CONNECTIONS = 10_000
/** As long as a message fault may hold its reply back (faults.ts's MAX_GREETING_DELAY_MS). */
const MAX_GREETING_DELAY_MS = 120_000
// As faults.ts reads replies: a 4xx/5xx code, one space, then text without control characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const REPLY_PATTERN = /^[45]\d\d \S[^\u0000-\u001f\u007f]*$/

/** Whether a `POST /faults` body asks for a receiver fault rather than a per-message one. */
export function isReceiverFaultBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'receiver' in body
}

/** Validates a receiver fault by hand, naming the field at fault (see parseFaultSpec for why). */
export function parseReceiverFaultSpec(body: unknown): ParseResult<ValidReceiverFaultSpec> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail('expected a JSON object such as {"receiver":"127.0.0.10","maxConnections":2}')
  }
  const input = body as Record<string, unknown>
  const unknown = Object.keys(input).filter((key) => !FIELDS.has(key))
  if (unknown.length > 0) {
    return fail(
      `unknown field ${unknown.map((key) => `"${key}"`).join(', ')} in a receiver fault; allowed: ${[...FIELDS].join(', ')}`,
      unknown[0],
    )
  }
  if (typeof input.receiver !== 'string' || input.receiver.trim() === '') {
    return fail('"receiver" must be a receiver\'s name, address or address:port', 'receiver')
  }
  const spec: ValidReceiverFaultSpec = { receiver: input.receiver.trim().toLowerCase() }

  if (input.throttle !== undefined) {
    const throttle = parseThrottle(input.throttle)
    if (!throttle.ok) return throttle
    spec.throttle = throttle.value
  }
  if (input.maxConnections !== undefined) {
    if (!isIntegerIn(input.maxConnections, 1, MAX_CONNECTIONS)) {
      return fail(`"maxConnections" must be an integer from 1 to ${MAX_CONNECTIONS}`, 'maxConnections')
    }
    spec.maxConnections = input.maxConnections
  }
  if (input.greetingDelayMs !== undefined) {
    if (!isIntegerIn(input.greetingDelayMs, 0, MAX_GREETING_DELAY_MS)) {
      return fail(
        `"greetingDelayMs" must be an integer from 0 to ${MAX_GREETING_DELAY_MS}`,
        'greetingDelayMs',
      )
    }
    spec.greetingDelayMs = input.greetingDelayMs
  }
  if (!spec.throttle && spec.maxConnections === undefined && spec.greetingDelayMs === undefined) {
    return fail('a receiver fault needs at least one of "throttle", "maxConnections" or "greetingDelayMs"')
  }
  return { ok: true, value: spec }
}

function parseThrottle(value: unknown): ParseResult<NonNullable<ReceiverFault['throttle']>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('"throttle" must be an object such as {"perMinute":300,"per":"source"}', 'throttle')
  }
  const input = value as Record<string, unknown>
  const unknown = Object.keys(input).filter((key) => !THROTTLE_FIELDS.has(key))
  if (unknown.length > 0) {
    return fail(
      `unknown field ${unknown.map((key) => `"${key}"`).join(', ')} in "throttle"; allowed: ${[...THROTTLE_FIELDS].join(', ')}`,
      `throttle.${unknown[0]}`,
    )
  }
  if (!isIntegerIn(input.perMinute, 0, MAX_PER_MINUTE)) {
    return fail(`"throttle.perMinute" must be an integer from 0 to ${MAX_PER_MINUTE}`, 'throttle.perMinute')
  }
  if (!(THROTTLE_KEYS as readonly unknown[]).includes(input.per)) {
    return fail(`"throttle.per" must be one of ${THROTTLE_KEYS.join(', ')}`, 'throttle.per')
  }
  const per = input.per as ThrottleKey
  let reply = DEFAULT_THROTTLE_REPLIES[per]
  if (input.reply !== undefined) {
    if (typeof input.reply !== 'string' || !REPLY_PATTERN.test(input.reply.trim())) {
      return fail(
        '"throttle.reply" must be a 4xx or 5xx code, a space and text on one line, such as "421 4.7.28 rate limited"',
        'throttle.reply',
      )
    }
    reply = input.reply.trim()
  }
  return { ok: true, value: { perMinute: input.perMinute, per, reply } }
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}

/** Whether a fault's `receiver` names this receiver (by name, address or address:port). */
export function namesReceiver(reference: string, receiver: ReceiverIdentity): boolean {
  return (
    reference === receiver.name ||
    reference === receiver.address ||
    reference === `${receiver.address}:${receiver.port}`
  )
}

/** Who a message counts against: where it came from, and the domains that signed it. */
export interface ThrottleSubject {
  source: string
  dkimDomains: readonly string[]
}

interface Entry {
  fault: ReceiverFault
  /** Acceptance times per source address or DKIM domain, pruned to the window. */
  accepted: Map<string, TimeQueue>
}

/**
 * Epoch-ms times, oldest first. Expired times are skipped by moving `start`, and the array is
 * compacted only when half of it is dead: a throttle of 100 000 a minute at full rate would
 * otherwise copy its whole window on every message.
 */
class TimeQueue {
  private times: number[] = []
  private start = 0

  get size(): number {
    return this.times.length - this.start
  }

  push(time: number): void {
    this.times.push(time)
  }

  dropBefore(since: number): void {
    while (this.start < this.times.length && (this.times[this.start] ?? since) < since) this.start++
    if (this.start > 64 && this.start * 2 > this.times.length) {
      this.times = this.times.slice(this.start)
      this.start = 0
    }
  }
}

/**
 * The receiver faults, each with its own sliding windows, so clearing a fault also forgets what it
 * counted. A throttle counts only messages the receiver accepted (as a provider counts delivered
 * mail), and the check and the count happen in one synchronous step at the end of DATA, so concurrent
 * connections cannot together slip past the limit.
 */
export class ReceiverFaultTable {
  private entries: Entry[] = []

  constructor(
    private readonly receivers: () => readonly ReceiverIdentity[],
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Adds a fault, validated as `POST /faults` validates it (so one added in code cannot put a
   * malformed reply on the wire); throws InvalidReceiverFaultError naming the field, or
   * UnknownReceiverError when it names no receiver the sink plays.
   */
  add(input: ReceiverFaultSpec): ReceiverFault {
    const parsed = parseReceiverFaultSpec(input)
    if (!parsed.ok) throw new InvalidReceiverFaultError(parsed.message, parsed.field)
    const spec = parsed.value
    const reference = spec.receiver
    const known = this.receivers()
    if (!known.some((receiver) => namesReceiver(reference, receiver))) {
      const names = known.map((receiver) => `${receiver.name} (${receiver.address}:${receiver.port})`)
      throw new UnknownReceiverError(
        `"receiver" ${JSON.stringify(spec.receiver)} is none of this sink's receivers: ${names.length > 0 ? names.join(', ') : 'it has none (set MAILSINK_RECEIVERS)'}`,
      )
    }
    const fault: ReceiverFault = { id: randomUUID(), ...spec }
    this.entries.push({ fault, accepted: new Map() })
    return structuredClone(fault)
  }

  list(): ReceiverFault[] {
    return this.entries.map((entry) => structuredClone(entry.fault))
  }

  clear(): number {
    const count = this.entries.length
    this.entries = []
    return count
  }

  /** The fewest connections any fault allows one source at this receiver; undefined: no limit. */
  maxConnections(receiver: ReceiverIdentity): number | undefined {
    const limits = this.for(receiver).flatMap(({ fault }) => fault.maxConnections ?? [])
    return limits.length > 0 ? Math.min(...limits) : undefined
  }

  /** The longest greeting delay of this receiver's faults, 0 without one. */
  greetingDelayMs(receiver: ReceiverIdentity): number {
    return Math.max(0, ...this.for(receiver).map(({ fault }) => fault.greetingDelayMs ?? 0))
  }

  /**
   * The throttle reply owed at MAIL FROM: a source-address throttle whose window is full. Undefined:
   * go on.
   */
  throttleAtMailFrom(receiver: ReceiverIdentity, source: string): string | undefined {
    return this.fullThrottle(receiver, { source, dkimDomains: [] }, 'source')
  }

  /**
   * At the end of DATA: the reply owed when any throttle of this receiver is full for the message's
   * source or one of its DKIM domains; otherwise the message counts as accepted in every throttle's
   * window and the answer is undefined.
   */
  admitAtData(receiver: ReceiverIdentity, subject: ThrottleSubject): string | undefined {
    const reply = this.fullThrottle(receiver, subject, undefined)
    if (reply) return reply
    const now = this.now()
    for (const entry of this.for(receiver)) {
      const throttle = entry.fault.throttle
      if (!throttle) continue
      for (const key of keysOf(throttle.per, subject)) {
        let times = entry.accepted.get(key)
        if (!times) {
          times = new TimeQueue()
          entry.accepted.set(key, times)
        }
        times.push(now)
      }
    }
    return undefined
  }

  private fullThrottle(
    receiver: ReceiverIdentity,
    subject: ThrottleSubject,
    only: ThrottleKey | undefined,
  ): string | undefined {
    const since = this.now() - THROTTLE_WINDOW_MS
    for (const entry of this.for(receiver)) {
      const throttle = entry.fault.throttle
      if (!throttle || (only && throttle.per !== only)) continue
      for (const key of keysOf(throttle.per, subject)) {
        if (countSince(entry.accepted, key, since) >= throttle.perMinute) {
          return fillReply(throttle.reply, subject.source, throttle.per === 'dkimDomain' ? key : '')
        }
      }
    }
    return undefined
  }

  private for(receiver: ReceiverIdentity): Entry[] {
    return this.entries.filter((entry) => namesReceiver(entry.fault.receiver, receiver))
  }
}

/** A receiver fault that names no receiver of this sink. */
export class UnknownReceiverError extends Error {
  override readonly name = 'UnknownReceiverError'
}

/** A receiver fault added in code that `POST /faults` would refuse; `field` names what is wrong. */
export class InvalidReceiverFaultError extends Error {
  override readonly name = 'InvalidReceiverFaultError'
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message)
  }
}

/**
 * A throttle reply with `{source}` and `{dkimDomain}` filled in. The domain comes from a header the
 * sender wrote, so anything but a host name's characters is dropped before it goes on the wire.
 */
function fillReply(reply: string, source: string, dkimDomain: string): string {
  return reply
    .replaceAll('{source}', source)
    .replaceAll('{dkimDomain}', dkimDomain.replace(/[^a-z0-9.-]/g, ''))
}

function keysOf(per: ThrottleKey, subject: ThrottleSubject): readonly string[] {
  return per === 'source' ? [subject.source] : subject.dkimDomains
}

/** Drops the times before `since` (they never count again) and counts the rest. */
function countSince(accepted: Map<string, TimeQueue>, key: string, since: number): number {
  const times = accepted.get(key)
  if (!times) return 0
  times.dropBefore(since)
  if (times.size === 0) accepted.delete(key)
  return times.size
}

/**
 * The `d=` of every DKIM-Signature header (as `headerRecord` joins repeated headers with "\n"),
 * lowercased, without duplicates. What is written, not what verifies: a provider throttling on a
 * domain has usually verified it, and the sink's check runs only after the reply.
 */
export function dkimDomainsOf(signatureHeaders: string | undefined): string[] {
  if (!signatureHeaders) return []
  const domains = new Set<string>()
  for (const header of signatureHeaders.split('\n')) {
    const found = /(?:^|;)\s*d\s*=\s*([^;\s]+)/i.exec(header)
    if (found?.[1]) domains.add(found[1].toLowerCase())
  }
  return [...domains]
}

function fail(message: string, field?: string): ParseResult<never> {
  return field === undefined ? { ok: false, message } : { ok: false, message, field }
}
