import type { SendFailure } from './send-failure'

/**
 * MX mode: the receiving provider kept deferring the message (throttling, or no room in its budget)
 * until DELIVERY_MAX_AGE_HOURS passed since it was accepted. Permanent: marked failed (`expired`) with
 * the provider's last reply, and dead-lettered like any failure.
 */
export class ExpiredMessageError extends Error implements SendFailure {
  override readonly name = 'ExpiredMessageError'
  readonly kind = 'permanent' as const
  readonly suppressRecipient = false
}
