import type { SendFailure } from './send-failure'

/**
 * The message row cannot become an email as it stands (no content, or campaign mail whose campaign
 * or contact is gone). Permanent: it is marked failed and dead-lettered with this
 * reason instead of being retried into the same wall.
 */
export class UndeliverableMessageError extends Error implements SendFailure {
  override readonly name = 'UndeliverableMessageError'
  readonly kind = 'permanent' as const
  readonly suppressRecipient = false
}
