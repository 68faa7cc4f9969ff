import type { SendErrorClassification } from './classification'

/**
 * A send that will never succeed as it stands: a 5xx reply about the message or its recipient. The
 * lane worker maps it to BullMQ's `UnrecoverableError`, so it is dead-lettered after one attempt
 * instead of hammering a server that already said no.
 */
export class PermanentSendError extends Error implements SendErrorClassification {
  override readonly name = 'PermanentSendError'
  readonly kind = 'permanent' as const
  readonly suppressRecipient: boolean
  readonly responseCode?: number
  readonly enhancedCode?: string

  constructor(classification: Omit<SendErrorClassification, 'kind'>, options?: { cause?: unknown }) {
    super(classification.message, options)
    this.suppressRecipient = classification.suppressRecipient
    if (classification.responseCode !== undefined) this.responseCode = classification.responseCode
    if (classification.enhancedCode !== undefined) this.enhancedCode = classification.enhancedCode
  }
}
