import type { Lane } from '../domain/lanes'
import type { MessageStatus } from '../domain/statuses'
import type { MessagePublishEvent } from '../outbox/events'

/**
 * What the dead-letter use cases need from the outside: the dead-letter queue (Redis, through
 * `@fairlane/queue`, in the app) and PostgreSQL's messages, outbox and audit log
 * (`@fairlane/db/queries/dead-letters`).
 */

/** What a dead letter says about the send that failed. */
export interface DeadLetterPayload {
  queue: Lane
  messageId: string
  tenantId: string
}

export type DeadLetterReading = { ok: true; payload: DeadLetterPayload } | { ok: false; reason: string }

export interface DeadLetter {
  id: string
  /** Its payload, or why it does not parse (a dead letter written by another version, or by hand). */
  read: DeadLetterReading
  /** Takes it off the dead-letter queue; rejects when the queue cannot be reached. */
  remove(): Promise<void>
}

/** The dead-letter queue. */
export interface DeadLetterQueue {
  /**
   * The dead letter with this id. Throws `not_found` when there is none (saying so when the id is a
   * lane's job instead), `service_unavailable` when the queue does not answer.
   */
  find(id: string): Promise<DeadLetter>
}

export type RequeueOutcome =
  | { kind: 'requeued'; lane: Lane; generation: number }
  | { kind: 'not-failed'; status: MessageStatus }
  /** The retention cleared its body (MESSAGE_BODY_RETENTION_DAYS): there is nothing left to send. */
  | { kind: 'body-removed'; removedAt: Date }
  | { kind: 'not-found' }

export interface DeadLetterAuditEntry {
  actor: string
  action: 'dlq.replay' | 'dlq.discard'
  targetType: 'message' | 'dead-letter'
  targetId: string
  reason: string | null
  details: Record<string, unknown>
}

/** One PostgreSQL transaction: everything written through it commits together or not at all. */
export interface DeadLetterTransaction {
  /** The message's lane, or null when it does not exist (for this tenant). */
  findMessageLane(query: { tenantId: string; messageId: string }): Promise<Lane | null>
  /**
   * A `failed` message with its body becomes `queued` under the next generation (a new job id, not
   * swallowed by the dead job retained under the old one); only while it is `failed`, so a second,
   * concurrent replay changes nothing. Otherwise answers why not, changing nothing.
   */
  requeueFailed(input: { tenantId: string; messageId: string; now: Date }): Promise<RequeueOutcome>
  /** Writes the message's outbox row and wakes the relay on commit; the relay adds the job. */
  publish(event: MessagePublishEvent): Promise<void>
  audit(entry: DeadLetterAuditEntry): Promise<void>
}

export interface DeadLetterStore {
  /** Runs `work` in one transaction, committed when this resolves, rolled back when `work` throws. */
  transaction<T>(work: (tx: DeadLetterTransaction) => Promise<T>): Promise<T>
}

export interface DeadLetterLogger {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
}

export interface DeadLetterActionDeps {
  queue: DeadLetterQueue
  store: DeadLetterStore
  clock: { now(): Date }
  logger: DeadLetterLogger
}

export interface DeadLetterAction {
  id: string
  /** Who: recorded in the audit entry. */
  actor: string
  reason: string | null
}

/** A failed message as a dead letter is rebuilt from it. */
export interface FailedMessage {
  id: string
  tenantId: string
  lane: Lane
  generation: number
  attempts: number
  lastError: string | null
  failedAt: Date
}

/** PostgreSQL's `failed` rows: the record the dead letters are restored from. */
export interface FailedMessageStore {
  /**
   * Failed messages since `failedSince` that should have a dead letter (not discarded by an admin
   * since they failed), in id order after `afterId`: keyset pages.
   */
  findRestorable(input: { failedSince: Date; afterId?: string; limit: number }): Promise<FailedMessage[]>
  /**
   * When more than `keep` of those exist: the failure time of the `keep`-th newest; undefined when
   * there are no more than `keep`.
   */
  newestRestorableSince(input: { failedSince: Date; keep: number }): Promise<Date | undefined>
}

/** The dead-letter queue as the restore sees it, with the marker that says it is complete. */
export interface RestorableDeadLetterQueue {
  /** True while the marker written by `markComplete` is there (gone when Redis lost its data). */
  isComplete(): Promise<boolean>
  markComplete(at: Date): Promise<void>
  /** Dead letters it holds, in every state. */
  size(): Promise<number>
  /**
   * One dead letter per message, under an id fixed by the message and its generation, so one that
   * is already there is not added twice.
   */
  add(messages: readonly FailedMessage[]): Promise<void>
}
