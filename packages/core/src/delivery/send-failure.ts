/**
 * The contract between the send use case and whatever delivers mail: a failed send rejects with an
 * error that says whether trying again can help. `@fairlane/mail/smtp-errors` implements it for
 * SMTP (`TransientSendError`, `PermanentSendError`); an error without `kind` counts as transient,
 * because retrying a deliverable message is cheap and dropping it is not.
 *
 * `outcome-unknown` (`OutcomeUnknownSendError`): the body had been handed to the server when the
 * connection failed, so the server may have the mail. Neither failed nor transient: the claim is kept.
 */
export interface SendFailure {
  readonly kind: 'transient' | 'permanent' | 'outcome-unknown'
  /** Only for permanent unknown-recipient answers: the tenant must stop mailing this address. */
  readonly suppressRecipient: boolean
  /** The server's reply code, when it answered (451, 550); absent for network failures. */
  readonly responseCode?: number
  readonly message: string
}

export function isSendFailure(error: unknown): error is Error & SendFailure {
  if (!(error instanceof Error)) return false
  const kind = (error as Partial<SendFailure>).kind
  return kind === 'transient' || kind === 'permanent' || kind === 'outcome-unknown'
}

/** True when retrying cannot help: the lane worker dead-letters it after this one attempt. */
export function isPermanentFailure(error: unknown): error is Error & SendFailure {
  return isSendFailure(error) && error.kind === 'permanent'
}

/** True when the server may have accepted the mail although the send failed (see above). */
export function isOutcomeUnknown(error: unknown): error is Error & SendFailure {
  return isSendFailure(error) && error.kind === 'outcome-unknown'
}
