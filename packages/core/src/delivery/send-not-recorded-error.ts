/**
 * The SMTP server accepted the message but marking it `sent` failed past its retries (PostgreSQL
 * away). The mail must not be sent again nor dead-lettered: the caller keeps `acceptedLockToken` and
 * later only records the send with it (`recordAcceptedSend`), never resends.
 */
export class SendNotRecordedError extends Error {
  override readonly name = 'SendNotRecordedError'
  /** The server's reply to the accepted message, for the `sent` event the record writes. */
  readonly response: string | undefined

  constructor(
    readonly messageId: string,
    /** The claim under which the server accepted the message: only it may mark the row sent. */
    readonly acceptedLockToken: string,
    options?: { cause?: unknown; response?: string | undefined },
  ) {
    super(`message ${messageId} was accepted by the server but could not be recorded as sent`, {
      cause: options?.cause,
    })
    this.response = options?.response
  }
}
