import type { SendFailure } from './send-failure'

/**
 * The connection failed (timeout, reset, close, the send deadline) after the message body had been
 * handed to the server and before its reply arrived: the server may have accepted the mail. Retrying
 * at once could deliver it twice, so the send claim is kept until it expires (SEND_LOCK_MS) and only
 * then may another attempt send it again, with the same Message-ID for the receiver to recognise.
 */
export class OutcomeUnknownSendError extends Error implements SendFailure {
  override readonly name = 'OutcomeUnknownSendError'
  readonly kind = 'outcome-unknown' as const
  readonly suppressRecipient = false

  constructor(message: string, options?: { cause?: unknown }) {
    super(`outcome unknown, the server may have accepted the message: ${message}`, options)
  }
}
