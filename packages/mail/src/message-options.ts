import type { OutgoingMail } from '@fairlane/core/delivery'
import { DKIM_HEADER_FIELD_NAMES } from './dkim-signature-check'

/**
 * The send use case's mail as nodemailer takes it, in relay mode (the lane's pooled transport) and in
 * MX mode (the MX transport's connections) alike: the VERP return path as MAIL FROM, not the From
 * header, and the DKIM signature per message (so one pool serves every tenant's domain; the key is
 * parsed once per domain) over the header fields `DKIM_HEADER_FIELD_NAMES` lists.
 */
export function nodemailerMessage(mail: OutgoingMail) {
  return {
    from: mail.from,
    ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
    to: mail.to,
    envelope: mail.envelope,
    ...(mail.dkim === undefined ? {} : { dkim: { ...mail.dkim, headerFieldNames: DKIM_HEADER_FIELD_NAMES } }),
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    messageId: mail.messageId,
    headers: mail.headers,
  }
}
