import {
  type ReceiverFaultTable,
  type ReceiverIdentity,
  type ThrottleSubject,
  TOO_MANY_CONNECTIONS_REPLY,
} from './receiver-faults'

/** What one receiver saw, in all or from one source address. */
export interface ReceiverCounts {
  /** Connections admitted (greeted or about to be). */
  connections: number
  /** Connections admitted and not yet closed. */
  openConnections: number
  /** Connections refused at greeting by a `maxConnections` fault (`421 4.7.0`). */
  refusedConnections: number
  /** Transactions begun: MAIL FROM commands. */
  attempts: number
  /** Messages stored with a `250`. */
  accepted: number
  /** Throttle replies (at MAIL FROM or at the end of DATA); refused connections are not among them. */
  throttled: number
}

/** `GET /receivers`: one receiver, its counts since start (or the last reset), and per source address. */
export interface ReceiverStatus extends ReceiverIdentity, ReceiverCounts {
  /** throttled ÷ attempts (0 before any attempt). */
  throttledShare: number
  sources: Record<string, ReceiverCounts>
}

const zero = (): ReceiverCounts => ({
  connections: 0,
  openConnections: 0,
  refusedConnections: 0,
  attempts: 0,
  accepted: 0,
  throttled: 0,
})

/**
 * One receiver's door: applies its faults to each connection and transaction and counts what
 * happened, in all and per source address (the egress address a sender connected from).
 */
export class ReceiverGate {
  private counts = zero()
  private bySource = new Map<string, ReceiverCounts>()
  // Open connections by session id, with their source: a limit counts what is open now.
  private readonly open = new Map<string, string>()

  constructor(
    readonly identity: ReceiverIdentity,
    private readonly faults: ReceiverFaultTable,
  ) {}

  /** At connect: the refusal owed (`421 4.7.0 …`) or undefined when admitted (and then counted as open). */
  connect(sessionId: string, source: string): string | undefined {
    const limit = this.faults.maxConnections(this.identity)
    const openFromSource = this.sourceCounts(source).openConnections
    if (limit !== undefined && openFromSource >= limit) {
      this.count(source, 'refusedConnections')
      return TOO_MANY_CONNECTIONS_REPLY
    }
    this.open.set(sessionId, source)
    this.count(source, 'connections')
    this.count(source, 'openConnections')
    return undefined
  }

  /** How long the greeting of an admitted connection waits. */
  greetingDelayMs(): number {
    return this.faults.greetingDelayMs(this.identity)
  }

  disconnect(sessionId: string): void {
    const source = this.open.get(sessionId)
    if (source === undefined) return
    this.open.delete(sessionId)
    this.count(source, 'openConnections', -1)
  }

  /** At MAIL FROM: the throttle reply owed to this source, or undefined to go on. */
  mailFrom(source: string): string | undefined {
    this.count(source, 'attempts')
    const reply = this.faults.throttleAtMailFrom(this.identity, source)
    if (reply) this.count(source, 'throttled')
    return reply
  }

  /** At the end of DATA: the throttle reply owed, or undefined when the message is accepted (and counted). */
  data(subject: ThrottleSubject): string | undefined {
    const reply = this.faults.admitAtData(this.identity, subject)
    this.count(subject.source, reply ? 'throttled' : 'accepted')
    return reply
  }

  status(): ReceiverStatus {
    const { attempts, throttled } = this.counts
    return {
      ...this.identity,
      ...this.counts,
      throttledShare: attempts === 0 ? 0 : throttled / attempts,
      sources: Object.fromEntries([...this.bySource].map(([source, counts]) => [source, { ...counts }])),
    }
  }

  /** Zeroes the counts; connections still open stay counted as open, since their close will be. */
  resetCounts(): void {
    const openBySource = new Map<string, number>()
    for (const source of this.open.values()) openBySource.set(source, (openBySource.get(source) ?? 0) + 1)
    this.counts = { ...zero(), openConnections: this.open.size }
    this.bySource = new Map(
      [...openBySource].map(([source, open]) => [source, { ...zero(), openConnections: open }]),
    )
  }

  private sourceCounts(source: string): ReceiverCounts {
    let counts = this.bySource.get(source)
    if (!counts) {
      counts = zero()
      this.bySource.set(source, counts)
    }
    return counts
  }

  private count(source: string, field: keyof ReceiverCounts, by = 1): void {
    this.counts[field] += by
    this.sourceCounts(source)[field] += by
  }
}
