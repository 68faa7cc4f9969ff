/**
 * The mailer was asked to DKIM-sign a message and the mail it would hand over carries no signature
 * (the signer failed). Thrown before a byte of the message reaches the server, so the server cannot
 * have it: the send use case holds the message (`signing_failed`), it is never sent unsigned.
 */
export class SigningFailedError extends Error {
  override readonly name = 'SigningFailedError'
}
