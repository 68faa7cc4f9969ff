import type { SendErrorClassification } from './classification'

/**
 * A send that may succeed if tried again: a 4xx reply, a refused or reset connection, a DNS hiccup,
 * a timeout. The lane worker lets BullMQ retry it with the lane's backoff.
 */
export class TransientSendError extends Error implements SendErrorClassification {
  override readonly name = 'TransientSendError'
  readonly kind = 'transient' as const
  readonly suppressRecipient = false
  readonly responseCode?: number
  readonly enhancedCode?: string

  constructor(classification: Omit<SendErrorClassification, 'kind'>, options?: { cause?: unknown }) {
    super(classification.message, options)
    if (classification.responseCode !== undefined) this.responseCode = classification.responseCode
    if (classification.enhancedCode !== undefined) this.enhancedCode = classification.enhancedCode
  }
}
