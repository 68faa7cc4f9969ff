import type { Readable } from 'node:stream'
import type { Transporter } from 'nodemailer'

/**
 * The field of `sendMail`'s options that asks to be told when the message body starts going to the
 * server: a function, called at most once. nodemailer keeps unknown option fields on `mail.data`.
 */
export const BODY_HANDOFF = 'onBodyHandoff'

interface StreamPluginMail {
  data: Record<string, unknown>
  message: { createReadStream: (options?: unknown) => Readable }
}

const installed = new WeakSet<Transporter>()

/**
 * Lets a send know when its body was handed to the server, the line between "the server cannot have
 * it" and "the server may have it". nodemailer's SMTP connection pipes the message stream into the
 * socket only once the server answered `DATA` with 354, so the first time that stream is set flowing
 * (its `resume`) is the moment DATA content starts being written. Earlier failures (connect,
 * greeting, MAIL FROM, RCPT TO, the DATA command itself) leave the stream unread; nodemailer's own
 * pool relies on the same fact (`readableDidRead`) to requeue such a message on another connection.
 *
 * The hook wraps the stream it is given when installed: install it after every other stream plugin
 * (the DKIM signature check), so it wraps the final stream the transport reads, not one a signer
 * reads whole as soon as it is created. Installing twice on one transport is a no-op.
 */
export function installBodyHandoff(transport: Transporter): void {
  if (installed.has(transport)) return
  installed.add(transport)
  transport.use('stream', (mail, done) => {
    const { data, message } = mail as unknown as StreamPluginMail
    const onHandoff = data[BODY_HANDOFF]
    if (typeof onHandoff === 'function') {
      const createReadStream = message.createReadStream.bind(message)
      message.createReadStream = (options?: unknown) => {
        const stream = createReadStream(options)
        stream.once('resume', () => onHandoff())
        return stream
      }
    }
    done()
  })
}
