import { ExpiredMessageError } from './expired-message-error'
import { isSendFailure } from './send-failure'
import { SigningFailedError } from './signing-failed-error'
import { UndeliverableMessageError } from './undeliverable-message-error'

/**
 * What tenants are told about a failed or retried send: a code and a fixed short reason, never the
 * server's raw reply (it can name internal relays); the raw reply stays in `last_error` for admins.
 */
export const DELIVERY_ERROR_CODES = [
  'recipient_unknown',
  'rejected',
  'invalid_message',
  'deferred',
  'expired',
  'connection_failed',
  'outcome_unknown',
  'undeliverable',
  'suppressed',
  'sender_domain_unverified',
  'signing_failed',
] as const
export type DeliveryErrorCode = (typeof DELIVERY_ERROR_CODES)[number]

export const DELIVERY_ERROR_REASONS: Record<DeliveryErrorCode, string> = {
  recipient_unknown: 'the receiving server says the recipient address does not exist',
  rejected: 'the receiving server refused the message',
  invalid_message: 'the message could not be handed to the mail server as it stands',
  deferred: 'the receiving server asked to try again later',
  expired:
    'the receiving server kept deferring the message until its maximum age (DELIVERY_MAX_AGE_HOURS) passed',
  connection_failed: 'the mail server could not be reached or the connection failed',
  outcome_unknown:
    'the connection was lost after the message was handed over; the server may have accepted it',
  undeliverable: 'the message has no content to send (its campaign or contact is gone)',
  suppressed: 'the recipient is suppressed or unsubscribed',
  sender_domain_unverified: 'held until the sending domain verifies again (its DNS records do not check out)',
  signing_failed: 'held: the message could not be DKIM-signed for its sending domain, so it was not sent',
}

/** The tenant-facing code of a send failure; unclassified errors count as a failed connection. */
export function deliveryErrorCodeOf(error: unknown): DeliveryErrorCode {
  if (error instanceof UndeliverableMessageError) return 'undeliverable'
  if (error instanceof ExpiredMessageError) return 'expired'
  if (error instanceof SigningFailedError) return 'signing_failed'
  if (!isSendFailure(error)) return 'connection_failed'
  const replied = error.responseCode !== undefined
  switch (error.kind) {
    case 'outcome-unknown':
      return 'outcome_unknown'
    case 'permanent':
      if (error.suppressRecipient) return 'recipient_unknown'
      return replied ? 'rejected' : 'invalid_message'
    case 'transient':
      return replied ? 'deferred' : 'connection_failed'
  }
}

export function isDeliveryErrorCode(value: unknown): value is DeliveryErrorCode {
  return typeof value === 'string' && (DELIVERY_ERROR_CODES as readonly string[]).includes(value)
}

/** What a tenant's message view says about the last failure: the code and its short reason, or nothing. */
export function describeDeliveryError(
  code: DeliveryErrorCode | null,
): { lastErrorCode: DeliveryErrorCode; lastError: string } | Record<string, never> {
  return code === null ? {} : { lastErrorCode: code, lastError: DELIVERY_ERROR_REASONS[code] }
}
