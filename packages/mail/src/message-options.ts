import type { OutgoingMail } from '@fairlane/core/delivery'
import MailComposer from 'nodemailer/lib/mail-composer'
import { composeMessage } from './compose/compose-message'
import { DKIM_SIGNED } from './dkim-signature-check'
import { signForSending } from './signed-message'
import { rewriteSubmittedMessage } from './submitted-mime'

/**
 * The send use case's mail as nodemailer's `sendMail` takes it, in relay mode (the lane's pooled
 * transport) and in MX mode (the MX transport's connections) alike: the whole message already
 * composed (`raw`, one buffer, so it goes to the socket in one write instead of one per line of
 * nodemailer's streams), the VERP return path as MAIL FROM, not the From header, and the DKIM
 * signature per message (so one pool serves every tenant's domain; the key is parsed once per domain)
 * made here by our signer over that buffer (`signForSending`): a signer that fails throws
 * `SigningFailedError` before anything is sent, and `DKIM_SIGNED` has the transport's check confirm
 * the bytes leaving open with the signature.
 *
 * Three ways to the bytes: mail with text and/or HTML (campaign and most API mail) by the send path's
 * own composer (`composeMessage`: what is the same for every message of a sender is built once);
 * API mail with attachments or inline images by nodemailer's MailComposer, as before, into a buffer;
 * a message submitted over SMTP as submitted, with our header rewrite (`rewriteSubmittedMessage`).
 */
export async function outgoingMessage(mail: OutgoingMail, now: Date = new Date()): Promise<OutgoingMessage> {
  const raw = await messageBytes(mail, now)
  if (mail.dkim === undefined) return { envelope: mail.envelope, messageId: mail.messageId, raw }
  return {
    envelope: mail.envelope,
    messageId: mail.messageId,
    raw: signForSending(raw, mail.dkim),
    [DKIM_SIGNED]: true,
  }
}

/** The fields of nodemailer's `sendMail` options this module sets. */
export interface OutgoingMessage {
  envelope: { from: string; to: string }
  /** `raw` is DKIM-signed: the transport's signature check confirms it leaves so. */
  [DKIM_SIGNED]?: true
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
