import type { MailAddress, OutgoingMail } from '@fairlane/core/delivery'
import { DKIM_SIGNED } from './dkim-signature-check'
import { rewriteSubmittedMessage } from './submitted-mime'

/**
 * The send use case's mail as nodemailer takes it, unsigned, in relay mode (the lane's pooled
 * transport) and in MX mode (the MX transport's connections) alike: the VERP return path as MAIL
 * FROM, not the From header. The DKIM signature is `messageToSend`'s, which signs this message when
 * `mail.dkim` asks for one (per message, so one pool serves every tenant's domain).
 *
 * A message submitted over SMTP goes as nodemailer's `raw`: the submitted bytes with our header
 * rewrite (`rewriteSubmittedMessage`); nodemailer then composes nothing.
 */
export function nodemailerMessage(mail: OutgoingMail): NodemailerMessage {
  if (mail.raw !== undefined) {
    return {
      envelope: mail.envelope,
      raw: rewriteSubmittedMessage(mail.raw, { messageId: mail.messageId, headers: mail.headers }),
    }
  }
  return {
    from: mail.from,
    ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
    to: mail.to,
    envelope: mail.envelope,
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
  /** `raw` is DKIM-signed (`messageToSend`): the transport's check confirms it leaves so. */
  [DKIM_SIGNED]?: true
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
