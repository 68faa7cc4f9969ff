import type { MessageStatus } from '../domain/statuses'
import type { SoftBounceRecord } from './count-soft-bounce'

/**
 * What `applyFeedback` needs from PostgreSQL (`@fairlane/db/queries/feedback`). Everything one
 * report changes happens in one `transaction`: the event, the message's status, the suppression and
 * the soft-bounce count commit together or not at all.
 */

/** A message a return path names, as the feedback needs it. */
export interface FeedbackMessage {
  id: string
  tenantId: string
  toAddress: string
  status: MessageStatus
  /** The From header it left with (`Name <local@domain>`); null: the platform's MAIL_FROM. */
  fromAddress: string | null
}

/** A message whose status waits for its send to be recorded before it can become bounced/complained. */
export interface MessageRef {
  tenantId: string
  messageId: string
}

export type FeedbackEventType = 'bounced' | 'complained' | 'unsubscribed'

export interface FeedbackStore {
  transaction<T>(work: (tx: FeedbackTransaction) => Promise<T>): Promise<T>
  /**
   * Gives each listed message that is `sent` the status its feedback events call for (a complaint
   * wins over a hard bounce); answers every listed message's status afterwards (missing: deleted).
   */
  settleStatuses(refs: readonly MessageRef[]): Promise<{ messageId: string; status: MessageStatus }[]>
  /** Messages with a hard bounce or complaint event since `since` whose status does not show it yet. */
  findUnsettled(query: { since: Date }): Promise<MessageRef[]>
}

export interface FeedbackTransaction {
  /**
   * The message, locked for the rest of the transaction (two copies of one report serialize here).
   * By id alone: the return path names only the message; the tenant is checked against it after.
   */
  findMessage(query: { messageId: string }): Promise<FeedbackMessage | null>
  /** The tenants with a sending domain whose return-path host (`<label>.<name>`) is `host`. */
  tenantsOfReturnPathHost(query: { host: string }): Promise<string[]>
  /** False when the message already has an event with this dedupe key (the report came twice). */
  recordEvent(event: {
    tenantId: string
    messageId: string
    type: FeedbackEventType
    detail: Record<string, unknown>
    dedupeKey: string
  }): Promise<boolean>
  /** Sets the status when it is one of `from`; answers whether it did. */
  setStatus(input: {
    tenantId: string
    messageId: string
    status: 'bounced' | 'complained'
    from: readonly MessageStatus[]
  }): Promise<boolean>
  /**
   * Suppresses the address on every lane, with the reason and its detail. An existing suppression of
   * every lane is kept as it is; a marketing-only one (an unsubscribe) is widened to this one.
   */
  suppress(input: {
    tenantId: string
    email: string
    reason: 'hard-bounce' | 'complaint'
    detail: string
    messageId: string
  }): Promise<void>
  /** Marks the tenant's contact with this address unsubscribed; true when it was not already. */
  unsubscribeContact(input: { tenantId: string; email: string; now: Date }): Promise<boolean>
  /** The address's soft-bounce record, created empty (softCount 0) if missing, locked. */
  lockSoftBounces(input: { tenantId: string; email: string; now: Date }): Promise<SoftBounceRecord>
  /** Whether a message to the address other than `exceptMessageId` was sent after `since`. */
  deliveredSince(input: {
    tenantId: string
    email: string
    since: Date
    exceptMessageId: string
  }): Promise<boolean>
  saveSoftBounces(input: { tenantId: string; email: string; record: SoftBounceRecord }): Promise<void>
}
