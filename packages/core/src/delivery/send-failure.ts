/**
 * The contract between the send use case and whatever delivers mail: a failed send rejects with an
 * error that says whether trying again can help. `@fairlane/mail/smtp-errors` implements it for
 * SMTP (`TransientSendError`, `PermanentSendError`); an error without `kind` counts as transient,
 * because retrying a deliverable message is cheap and dropping it is not.
 */
export interface SendFailure {
  readonly kind: 'transient' | 'permanent'
  /** Only for permanent unknown-recipient answers: the tenant must stop mailing this address. */
  readonly suppressRecipient: boolean
  readonly message: string
}

export function isSendFailure(error: unknown): error is Error & SendFailure {
  if (!(error instanceof Error)) return false
  const kind = (error as Partial<SendFailure>).kind
  return kind === 'transient' || kind === 'permanent'
}

/** True when retrying cannot help: the lane worker dead-letters it after this one attempt. */
export function isPermanentFailure(error: unknown): error is Error & SendFailure {
  return isSendFailure(error) && error.kind === 'permanent'
}
