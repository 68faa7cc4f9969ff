import type { DkimSignature, MailAddress, OutgoingMail } from '@fairlane/core/delivery'
import { DKIM_HEADER_FIELD_NAMES } from './dkim-signature-check'
import { rewriteSubmittedMessage } from './submitted-mime'

/**
 * The send use case's mail as nodemailer takes it, in relay mode (the lane's pooled transport) and in
 * MX mode (the MX transport's connections) alike: the VERP return path as MAIL FROM, not the From
 * header, and the DKIM signature per message (so one pool serves every tenant's domain; the key is
 * parsed once per domain) over the header fields `DKIM_HEADER_FIELD_NAMES` lists.
 *
 * A message submitted over SMTP goes as nodemailer's `raw`: the submitted bytes with our header
 * rewrite (`rewriteSubmittedMessage`), signed over the same fields; nodemailer then composes nothing.
 */
export function nodemailerMessage(mail: OutgoingMail): NodemailerMessage {
  const dkim =
    mail.dkim === undefined ? {} : { dkim: { ...mail.dkim, headerFieldNames: DKIM_HEADER_FIELD_NAMES } }
  if (mail.raw !== undefined) {
    return {
      envelope: mail.envelope,
      ...dkim,
      raw: rewriteSubmittedMessage(mail.raw, { messageId: mail.messageId, headers: mail.headers }),
    }
  }
  return {
    from: mail.from,
    ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
    to: mail.to,
    envelope: mail.envelope,
    ...dkim,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    messageId: mail.messageId,
    headers: mail.headers,
    ...(mail.attachments === undefined || mail.attachments.length === 0
      ? {}
      : { attachments: mail.attachments.map(nodemailerAttachment) }),
  }
}

/** The fields of nodemailer's `sendMail` options this module sets (one shape for both kinds of mail). */
export interface NodemailerMessage {
  envelope: { from: string; to: string }
  dkim?: DkimSignature & { headerFieldNames: string }
  raw?: Buffer
  from?: string | MailAddress
  replyTo?: string
  to?: string
  subject?: string
  html?: string | undefined
  text?: string | undefined
  messageId?: string
  headers?: Record<string, string>
  attachments?: { filename: string; contentType: string; content: Buffer; cid?: string }[]
}

/** With a Content-ID the part is inline: nodemailer puts it beside the HTML in multipart/related. */
function nodemailerAttachment(attachment: NonNullable<OutgoingMail['attachments']>[number]) {
  const { content } = attachment
  return {
    filename: attachment.filename,
    contentType: attachment.contentType,
    content: Buffer.isBuffer(content)
      ? content
      : Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    ...(attachment.contentId === null ? {} : { cid: attachment.contentId }),
  }
}
