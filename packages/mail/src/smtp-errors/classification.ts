/**
 * What the classifier decides about one failed send. `transient` means the same message may go
 * through later (retry with backoff); `permanent` means it never will (dead-letter it at once).
 * `suppressRecipient` is set only for permanent "this mailbox does not exist" answers, so the
 * tenant stops mailing an address that hard-bounced.
 */
export interface SendErrorClassification {
  kind: 'transient' | 'permanent'
  /** The SMTP reply code, when the server answered (e.g. 451, 550). */
  responseCode?: number
  /** The RFC 3463 enhanced status code, when the reply carried one (e.g. "5.1.1"). */
  enhancedCode?: string
  suppressRecipient: boolean
  message: string
}
