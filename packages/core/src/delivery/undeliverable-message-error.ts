import type { SendFailure } from './send-failure'

/**
 * The message row cannot become an email as it stands (e.g. campaign mail, whose content is rendered
 * from its campaign: not built yet). Permanent: it is marked failed and dead-lettered with this
 * reason instead of being retried into the same wall.
 */
export class UndeliverableMessageError extends Error implements SendFailure {
  override readonly name = 'UndeliverableMessageError'
  readonly kind = 'permanent' as const
  readonly suppressRecipient = false
}
