import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream'
import { SigningFailedError } from '@fairlane/core/delivery'
import type { Transporter } from 'nodemailer'

/**
 * The headers every DKIM signature covers when present: the identity and MIME headers and the
 * one-click unsubscribe pair (RFC 8058 requires List-Unsubscribe-Post to be signed).
 */
export const DKIM_HEADER_FIELD_NAMES =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'List-Unsubscribe:List-Unsubscribe-Post:List-Id:Feedback-ID'

const SIGNATURE = Buffer.from('dkim-signature:')

/**
 * The field of `sendMail`'s options that says its `raw` message was DKIM-signed (`outgoingMessage`), so
 * the check below confirms the signature on the bytes that leave. nodemailer keeps unknown option
 * fields on `mail.data`.
 */
export const DKIM_SIGNED = 'dkimSigned'

interface StreamPluginMail {
  data: { dkim?: unknown; raw?: unknown; [DKIM_SIGNED]?: unknown }
  message: { createReadStream: (options?: unknown) => Readable }
}

const installed = new WeakSet<Transporter>()

/**
 * Makes a message that asked for a DKIM signature fail instead of leaving without one. A `raw`
 * message signed by `outgoingMessage` (`DKIM_SIGNED`) must open with its DKIM-Signature, or the send
 * fails before the transport is called. A message nodemailer signs itself (its `dkim` option; its
 * signer logs nothing when signing throws and writes the message unsigned) is checked on the stream:
 * this check reads the signed stream's first bytes before passing anything on:
 * without the header it errors with `SigningFailedError`, so not a byte of the message reaches the
 * server (nodemailer closes the connection mid-DATA, and a server keeps no message without its end).
 *
 * Install on a transport before `installBodyHandoff`, whose hook must wrap this check's output.
 */
export function installDkimSignatureCheck(transport: Transporter): void {
  if (installed.has(transport)) return
  installed.add(transport)
  transport.use('stream', (mail, done) => {
    const { data, message } = mail as unknown as StreamPluginMail
    if (data[DKIM_SIGNED] === true) {
      // The signed bytes are at hand: checked before the transport is called (no connection taken),
      // without a stream around the message.
      done(Buffer.isBuffer(data.raw) && isSigned(data.raw) ? null : unsigned())
      return
    }
    if (data.dkim) {
      const createReadStream = message.createReadStream.bind(message)
      // pipeline: a failed check also destroys the signer's stream, which stops reading the message.
      message.createReadStream = (options?: unknown) =>
        pipeline(createReadStream(options), new SignatureCheck(), () => {})
    }
    done()
  })
}

/**
 * Passes the message on once its first header is a DKIM-Signature; errors otherwise. A signer has
 * the whole message in memory before it writes a byte (the body hash comes first), so the signed
 * message goes on as one chunk: one write to the socket instead of one per line.
 */
class SignatureCheck extends Transform {
  private chunks: Buffer[] = []
  private bytes = 0
  private checked = false

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.chunks.push(chunk)
    this.bytes += chunk.length
    if (!this.checked && this.bytes >= SIGNATURE.length) {
      if (!isSigned(Buffer.concat(this.chunks))) {
        callback(unsigned())
        return
      }
      this.checked = true
    }
    callback()
  }

  override _flush(callback: TransformCallback): void {
    if (!this.checked) callback(unsigned())
    else callback(null, Buffer.concat(this.chunks, this.bytes))
  }
}

function isSigned(head: Buffer): boolean {
  return head.subarray(0, SIGNATURE.length).toString('latin1').toLowerCase() === SIGNATURE.toString()
}

function unsigned(): SigningFailedError {
  return new SigningFailedError('the message was to be DKIM-signed and the signer produced no signature')
}
