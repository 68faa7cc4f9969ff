import type { Lane } from '../domain/lanes'
import type { MessageStatus } from '../domain/statuses'

/** One page's filters for the message list (API and the app's message log): every one optional but the tenant. */
export interface MessageListQuery {
  tenantId: string
  status?: MessageStatus | undefined
  /** The recipient, whole address, case-blind. */
  to?: string | undefined
  /** Part of the recipient address, case-blind (the app's search box). */
  recipientContains?: string | undefined
  /** One campaign's deliveries; `null`: API mail only (no campaign); absent: all of the tenant's mail. */
  campaignId?: string | null | undefined
  /** Created at or after. */
  from?: Date | undefined
  /** Created before. */
  until?: Date | undefined
  /** The last row of the previous page (keyset on (created_at, id), newest first). */
  after?: string | undefined
  limit: number
}

export interface MessageListEntry {
  id: string
  toAddress: string
  subject: string | null
  status: MessageStatus
  lane: Lane
  campaignId: string | null
  createdAt: Date
  sentAt: Date | null
  sendAt: Date | null
}

export interface MessageListStore {
  /** Up to `limit` rows, newest first. */
  list(query: MessageListQuery): Promise<MessageListEntry[]>
}

export type CancelOutcome =
  | { kind: 'cancelled' }
  /** Someone holds it, or it has finished: too late. */
  | { kind: 'too-late'; status: MessageStatus }
  | { kind: 'not-found' }

export interface MessageCancelStore {
  /**
   * In one statement: the row moves to `cancelled` with an event `cancelled` only while no worker holds
   * it (`scheduled`, `queued`, `pending`, `held`); otherwise says what it is.
   */
  cancel(query: { tenantId: string; messageId: string }): Promise<CancelOutcome>
}

/** A scheduled message whose time has come, now `queued` with its outbox row. */
export interface ReleasedMessage {
  id: string
  tenantId: string
  lane: Lane
}

export interface ScheduledReleaseStore {
  /**
   * Moves up to `limit` due `scheduled` rows (send_at ≤ now by the database's clock), oldest first, to
   * `queued` with an outbox row each, in one transaction that skips rows another releaser holds, and
   * wakes the relay.
   */
  releaseDue(query: { limit: number }): Promise<ReleasedMessage[]>
}
