import type { DkimSignature, OutgoingMail } from '@fairlane/core/delivery'
import MailComposer from 'nodemailer/lib/mail-composer'
import { composeMessage } from './compose/compose-message'
import { DKIM_HEADER_FIELD_NAMES } from './dkim-signature-check'
import { rewriteSubmittedMessage } from './submitted-mime'

/**
 * The send use case's mail as nodemailer's `sendMail` takes it, in relay mode (the lane's pooled
 * transport) and in MX mode (the MX transport's connections) alike: the whole message already
 * composed (`raw`, one buffer, so it goes to the socket in one write instead of one per line of
 * nodemailer's streams), the VERP return path as MAIL FROM, not the From header, and the DKIM
 * signature per message (so one pool serves every tenant's domain; the key is parsed once per domain)
 * over the header fields `DKIM_HEADER_FIELD_NAMES` lists. nodemailer signs a raw message as any other.
 *
 * Three ways to the bytes: mail with text and/or HTML (campaign and most API mail) by the send path's
 * own composer (`composeMessage`: what is the same for every message of a sender is built once);
 * API mail with attachments or inline images by nodemailer's MailComposer, as before, into a buffer;
 * a message submitted over SMTP as submitted, with our header rewrite (`rewriteSubmittedMessage`).
 */
export async function outgoingMessage(mail: OutgoingMail, now: Date = new Date()): Promise<OutgoingMessage> {
  const dkim =
    mail.dkim === undefined ? {} : { dkim: { ...mail.dkim, headerFieldNames: DKIM_HEADER_FIELD_NAMES } }
  return { envelope: mail.envelope, ...dkim, messageId: mail.messageId, raw: await messageBytes(mail, now) }
}

/** The fields of nodemailer's `sendMail` options this module sets. */
export interface OutgoingMessage {
  envelope: { from: string; to: string }
  dkim?: DkimSignature & { headerFieldNames: string }
  /**
   * The message's own Message-ID, for nodemailer's logs and `info.messageId` only: a raw message is
   * sent as it is (this sets no header), and nodemailer then draws no random id for each message.
   */
  messageId: string
  raw: Buffer
}

async function messageBytes(mail: OutgoingMail, now: Date): Promise<Buffer> {
  if (mail.raw !== undefined) {
    return rewriteSubmittedMessage(mail.raw, { messageId: mail.messageId, headers: mail.headers, now })
  }
  if (mail.attachments === undefined || mail.attachments.length === 0) {
    return composeMessage({
      from: mail.from,
      replyTo: mail.replyTo,
      to: mail.to,
      subject: mail.subject,
      messageId: mail.messageId,
      date: now,
      headers: mail.headers,
      html: mail.html,
      text: mail.text,
    }).message
  }
  return new MailComposer({
    from: mail.from,
    ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
    to: mail.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    messageId: mail.messageId,
    date: now,
    headers: mail.headers,
    attachments: mail.attachments.map(nodemailerAttachment),
  })
    .compile()
    .build()
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
