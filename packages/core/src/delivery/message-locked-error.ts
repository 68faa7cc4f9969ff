import type { SendFailure } from './send-failure'

/**
 * Another attempt holds the send claim and its lock has not expired: sending now could deliver the
 * message twice. Transient: the caller tries again once the lock can have expired (`retryInMs`),
 * by which time the holder has either marked the message sent or died and left it reclaimable.
 */
export class MessageLockedError extends Error implements SendFailure {
  override readonly name = 'MessageLockedError'
  readonly kind = 'transient' as const
  readonly suppressRecipient = false

  constructor(
    readonly messageId: string,
    /** Until the current claim's `locked_until`, by the database's clock; 0 when it just changed hands. */
    readonly retryInMs: number,
  ) {
    super(`message ${messageId} is being sent by another attempt (lock free in ${retryInMs} ms)`)
  }
}
