import type { MessageAuth } from './auth'
import type { ReceiverIdentity } from './receiver-faults'

/** One accepted message as the HTTP API returns it; the field names are a contract with external scripts. */
export interface StoredMessage {
  id: string
  /** The Message-ID header as written, angle brackets included; null when the message had none. */
  messageId: string | null
  /** The From header as text (display name and address). */
  from: string
  /** Envelope recipients (RCPT TO) as the client sent them, joined with ", ". */
  to: string
  /** Envelope recipients, lowercased: what `?to=` matches against. */
  recipients: string[]
  subject: string
  text: string
  html: string | null
  /** Lowercased header name → value after the colon; a repeated header's values joined with "\n". */
  headers: Record<string, string>
  receivedAt: string
  /** MAIL FROM (empty for the null sender `<>`) and RCPT TO as the client sent them. */
  envelope: { from: string; to: string[] }
  /** DKIM (and, for signed mail, SPF and DMARC) as a receiver would judge them. */
  auth: MessageAuth
  /** The receiver (MAILSINK_RECEIVERS) that took the message; null when the sink's usual listener did. */
  receiver: ReceiverIdentity | null
  /** The client's address: for a receiver, the egress address the sender connected from. */
  sourceAddress: string
  /** Whether the client had switched to TLS (STARTTLS, which only receivers given a certificate offer). */
  tls: boolean
}

export interface MessageFilter {
  /** An envelope recipient address, compared case-insensitively. */
  to?: string | undefined
  /** Epoch milliseconds; keeps messages received at or after it. */
  since?: number | undefined
  /** A receiver's name or address: keeps the messages it took. */
  receiver?: string | undefined
}

interface Entry {
  message: StoredMessage
  /** The message as received (`GET /messages/:id/raw`): what a DKIM verifier must read. */
  raw?: Buffer
  // Kept next to the record so a `since` filter over 50 000 messages does not re-parse ISO strings.
  receivedAtMs: number
}

/**
 * A ring of the most recent messages. The sink runs for hours under benchmarks that send far more
 * mail than anyone reads, so memory is bounded by count and the oldest message makes room.
 */
export class MessageStore {
  readonly capacity: number
  // Grows up to `capacity` and is then overwritten in place; `start` is the oldest slot.
  private readonly slots: Entry[] = []
  private start = 0
  private readonly byId = new Map<string, Entry>()

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`store capacity must be a positive integer, got ${capacity}`)
    }
    this.capacity = capacity
  }

  get size(): number {
    return this.slots.length
  }

  add(message: StoredMessage, raw?: Buffer): void {
    const entry: Entry = { message, raw, receivedAtMs: Date.parse(message.receivedAt) }
    if (this.slots.length < this.capacity) {
      this.slots.push(entry)
    } else {
      const evicted = this.slots[this.start]
      if (evicted) this.byId.delete(evicted.message.id)
      this.slots[this.start] = entry
      this.start = (this.start + 1) % this.capacity
    }
    this.byId.set(message.id, entry)
  }

  get(id: string): StoredMessage | undefined {
    return this.byId.get(id)?.message
  }

  /** The bytes received for a message, when the store kept them. */
  raw(id: string): Buffer | undefined {
    return this.byId.get(id)?.raw
  }

  /** Matching messages, oldest first. */
  list(filter: MessageFilter = {}): StoredMessage[] {
    const to = filter.to?.trim().toLowerCase()
    const since = filter.since
    const receiver = filter.receiver?.trim().toLowerCase()
    const result: StoredMessage[] = []
    for (const entry of this.entries()) {
      if (since !== undefined && entry.receivedAtMs < since) continue
      if (to && !entry.message.recipients.includes(to)) continue
      if (receiver && !tookIt(entry.message.receiver, receiver)) continue
      result.push(entry.message)
    }
    return result
  }

  /** The `limit` most recent messages, newest first (for the inbox page). */
  latest(limit: number): StoredMessage[] {
    const result: StoredMessage[] = []
    const count = this.slots.length
    for (let i = 1; i <= Math.min(limit, count); i++) {
      const entry = this.slots[(this.start + count - i) % count]
      if (entry) result.push(entry.message)
    }
    return result
  }

  /** Empties the store and says how many messages it held. */
  clear(): number {
    const count = this.slots.length
    this.slots.length = 0
    this.start = 0
    this.byId.clear()
    return count
  }

  private *entries(): Generator<Entry> {
    const count = this.slots.length
    for (let i = 0; i < count; i++) {
      const entry = this.slots[(this.start + i) % count]
      if (entry) yield entry
    }
  }
}

function tookIt(taker: ReceiverIdentity | null, reference: string): boolean {
  return taker !== null && (taker.name === reference || taker.address === reference)
}

/**
 * Reads the `since` query value: epoch milliseconds (digits only) or an ISO 8601 timestamp.
 * Returns undefined for anything else so the caller can answer 400 instead of silently listing all.
 */
export function parseSince(value: string): number | undefined {
  const trimmed = value.trim()
  if (/^\d{1,16}$/.test(trimmed)) return Number(trimmed)
  // Date.parse alone accepts things like "1" or "March 7"; insist on an ISO-looking date first.
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(trimmed))
    return undefined
  const ms = Date.parse(trimmed)
  return Number.isNaN(ms) ? undefined : ms
}
