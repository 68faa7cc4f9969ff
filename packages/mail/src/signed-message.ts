import { type OutgoingMail, SigningFailedError } from '@fairlane/core/delivery'
import MailComposer from 'nodemailer/lib/mail-composer'
import { dkimSign } from './dkim'
import { DKIM_HEADER_FIELD_NAMES, DKIM_SIGNED } from './dkim-signature-check'
import { type NodemailerMessage, nodemailerMessage } from './message-options'

/**
 * What a transport sends for `mail`. Without `mail.dkim` it is `nodemailerMessage(mail)`, which
 * nodemailer composes as it streams. With it, the message is composed here to one buffer
 * (MailComposer, as nodemailer composes it; a submitted message's rewritten bytes as they are), signed
 * by `dkimSign` and handed over as `raw` with the envelope, so nodemailer composes nothing more.
 *
 * Never sent unsigned: a signer that throws throws `SigningFailedError` here, before a connection is
 * asked for, and `DKIM_SIGNED` has the transport's signature check confirm that the bytes leaving open
 * with the signature. Anything else that fails (composing the message) rejects as it is.
 */
export async function messageToSend(mail: OutgoingMail): Promise<NodemailerMessage> {
  const message = nodemailerMessage(mail)
  const { dkim } = mail
  if (dkim === undefined) return message
  const composed = message.raw ?? (await new MailComposer(message).compile().build())
  let signed: Buffer
  try {
    signed = dkimSign(composed, dkim, { headerFieldNames: DKIM_HEADER_FIELD_NAMES })
  } catch (error) {
    throw new SigningFailedError(
      `could not DKIM-sign the message for ${dkim.domainName}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  return { envelope: message.envelope, raw: signed, [DKIM_SIGNED]: true }
}
