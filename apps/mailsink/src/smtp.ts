import type { Logger } from 'pino'
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server'
import { isSigned } from './auth'
import type { AuthChecks } from './auth-checks'
import { type FaultTable, isNotificationFault, matches, type NotificationFault, splitReply } from './faults'
import type { Notifier } from './notifier'
import { type Envelope, toStoredHeaders, toStoredMessage } from './parse-message'
import { dkimDomainsOf } from './receiver-faults'
import type { ReceiverGate } from './receiver-gate'
import { receiverMxHost } from './receiver-zone'
import type { MessageStore, StoredMessage } from './store'

/** Advertised with SIZE; larger messages are refused with 552 and never buffered past the limit. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024

export interface SmtpSinkOptions {
  store: MessageStore
  faults: FaultTable
  logger: Logger
  /** Checks DKIM/SPF/DMARC of signed messages once they are accepted. */
  checks: AuthChecks
  /** Sends the bounces and complaints of `bounce`/`complaint` faults; without it they are refused. */
  notifier?: Notifier | undefined
  maxMessageBytes?: number
  /**
   * When this server plays one of the receivers (MAILSINK_RECEIVERS): its door, which applies the
   * receiver's faults (connection limits, greeting delays, throttles) and counts. Undefined: the
   * sink's usual listener, which has none.
   */
  gate?: ReceiverGate | undefined
  /** Offer STARTTLS with this certificate (a receiver's `tls`); without it STARTTLS is not offered. */
  tls?: { key: string | Buffer; cert: string | Buffer } | undefined
  /**
   * MAILSINK_STORE: `full` (default) keeps each message parsed (text, HTML) with its raw bytes;
   * `headers` keeps the envelope and headers only, read without a MIME parse (`toStoredHeaders`).
   */
  keep?: 'full' | 'headers' | undefined
}

export interface SmtpSink {
  server: SMTPServer
  /** Answers open sessions with 421, stops listening and cancels pending fault delays. */
  close(): Promise<void>
}

type DataCallback = (error?: Error | null, message?: string) => void

/** An Error smtp-server turns into the reply `<responseCode> <message>`, verbatim. */
export function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code })
}

/** A validated fault reply (`421 4.7.28 …`) as the Error smtp-server answers with. */
function replyError(reply: string): Error {
  const { code, text } = splitReply(reply)
  return smtpError(code, text)
}

/** The client's address as the sender knows its egress address: IPv4-mapped IPv6 written as IPv4. */
function sourceOf(session: SMTPServerSession): string {
  return session.remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
}

export function createSmtpSink(options: SmtpSinkOptions): SmtpSink {
  const { store, faults, logger, checks, notifier, gate } = options
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES
  const delays = new Set<() => void>()
  let closed = false

  const server = new SMTPServer({
    // Any client may send: the sink stands in for a relay in development and tests.
    authOptional: true,
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
    // Plain TCP unless a certificate is given: with STARTTLS offered, clients would otherwise try
    // smtp-server's built-in self-signed certificate.
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    size: maxBytes,
    // A reverse DNS lookup per connection can hold the greeting for up to 1.5 s.
    disableReverseLookup: true,
    // smtp-server's own per-connection info logs would drown the sink's; errors arrive via 'error'.
    logger: false,
    banner: 'Fairlane mailsink',
    closeTimeout: 2_000,
    onData: (stream, session, callback) => receive(stream, session, callback),
    ...(gate && {
      // Greets as the MX host it plays: "220 gmail-smtp-in.l.google.com ESMTP Fairlane mailsink receiver google".
      name: receiverMxHost(gate.identity),
      banner: `Fairlane mailsink receiver ${gate.identity.name}`,
      onConnect: (session, callback) => admit(gate, session, callback),
      onClose: (session) => gate.disconnect(session.id),
      onMailFrom: (_address, session, callback) => {
        const reply = gate.mailFrom(sourceOf(session))
        callback(reply ? replyError(reply) : undefined)
      },
    }),
  })

  /** A receiver's greeting: refused over its connection limit, else sent after its greeting delay. */
  function admit(gate: ReceiverGate, session: SMTPServerSession, callback: (error?: Error) => void): void {
    const refusal = gate.connect(session.id, sourceOf(session))
    if (refusal) {
      callback(replyError(refusal))
      return
    }
    const delayMs = gate.greetingDelayMs()
    if (delayMs === 0) {
      callback()
      return
    }
    void wait(delayMs).then(() =>
      // The sink shut down during the delay: the client gets what every open session got.
      callback(closed ? smtpError(421, 'mailsink shutting down') : undefined),
    )
  }

  // smtp-server re-emits every socket and listener error here, and an EventEmitter without an 'error'
  // listener throws, which would take the whole sink down over one client's reset connection. Errors
  // before listening are the listen call's to report (port in use), so they are not logged twice.
  server.on('error', (error: Error & { remoteAddress?: string }) => {
    if (!server.server.listening) return
    if (error.remoteAddress)
      logger.debug({ err: error.message, client: error.remoteAddress }, 'smtp client error')
    else logger.error({ err: error }, 'smtp server error')
  })

  function receive(stream: SMTPServerDataStream, session: SMTPServerSession, callback: DataCallback): void {
    // Captured now: smtp-server resets the envelope as soon as the reply is sent.
    const recipients = session.envelope.rcptTo.map((recipient) => recipient.address)
    const mailFrom = session.envelope.mailFrom
    const envelope: Envelope = { from: mailFrom ? mailFrom.address : '', to: recipients }
    const chunks: Buffer[] = []
    let bytes = 0
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= maxBytes) chunks.push(chunk)
    })
    // Emitted when the client disconnects mid-message; there is nobody left to answer.
    stream.on('error', (error) =>
      logger.debug({ err: error.message, session: session.id }, 'message aborted'),
    )
    stream.on('end', () => {
      finish(Buffer.concat(chunks), envelope, stream.sizeExceeded, session, callback).catch(
        (error: unknown) => {
          logger.error({ err: error }, 'could not handle a message')
          callback(smtpError(451, '4.3.0 the sink could not handle the message'))
        },
      )
    })
  }

  async function finish(
    raw: Buffer,
    envelope: Envelope,
    sizeExceeded: boolean,
    session: SMTPServerSession,
    callback: DataCallback,
  ): Promise<void> {
    if (sizeExceeded) {
      callback(smtpError(552, `5.3.4 message exceeds the limit of ${maxBytes} bytes`))
      return
    }
    const fault = faults.take(envelope.to)
    // A bounce or complaint comes after a normal 250; its delayMs is the notification's.
    const notification = fault && isNotificationFault(fault) ? fault : undefined
    if (fault && !notification) {
      logger.debug({ fault, session: session.id }, 'applying fault')
      if (fault.delayMs) await wait(fault.delayMs)
      // The sink shut down during the delay; the session has already been told 421.
      if (closed) return
      if (fault.drop) {
        dropConnection(session.id)
        return
      }
      if (fault.reply) {
        const { code, text } = splitReply(fault.reply)
        callback(smtpError(code, text))
        return
      }
    }
    const sourceAddress = sourceOf(session)
    const arrival = { receiver: gate?.identity ?? null, sourceAddress, tls: session.secure }
    const headersOnly = options.keep === 'headers'
    const message = headersOnly
      ? toStoredHeaders(raw, envelope, new Date(), arrival)
      : await toStoredMessage(raw, envelope, new Date(), arrival)
    if (gate) {
      const dkimDomains = dkimDomainsOf(message.headers['dkim-signature'])
      const reply = gate.data({ source: sourceAddress, dkimDomains })
      if (reply) {
        logger.debug({ reply, source: sourceAddress, dkimDomains, session: session.id }, 'throttled at DATA')
        callback(replyError(reply))
        return
      }
    }
    // Only signed mail is checked, after the reply is decided (readers wait for the verdict, see
    // AuthChecks). Unsigned mail (benchmarks, the platform sender) costs no lookup and no second parse.
    if (isSigned(message.headers)) {
      checks.start(message, raw, {
        sender: envelope.from,
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs,
      })
    }
    // The checks and a report's original were handed `raw` itself: a headers-only store keeps none.
    store.add(message, headersOnly ? undefined : raw)
    if (notification) notifyLater(notification, message, raw, session)
    if (fault?.dropAfterData) {
      // Stored, never answered: the client cannot tell this from a lost reply.
      logger.debug({ id: message.id, session: session.id }, 'message stored; dropping without a reply')
      dropConnection(session.id)
      return
    }
    logger.debug({ id: message.id, to: message.to, subject: message.subject }, 'message accepted')
    callback(null, `OK: queued as ${message.id}`)
  }

  /** Hands the report a bounce or complaint fault asks for to the notifier, about the recipients it matches. */
  function notifyLater(
    fault: NotificationFault,
    message: StoredMessage,
    raw: Buffer,
    session: SMTPServerSession,
  ): void {
    if (!notifier) {
      // Only a fault added in code can get here: POST /faults refuses them without a notifier.
      logger.error({ fault, id: message.id }, 'no report sent: the sink has no INBOUND_SMTP_URL')
      return
    }
    notifier.schedule({
      fault,
      recipients: message.envelope.to.filter((to) => matches(fault.match, to.toLowerCase())),
      message: { id: message.id, messageId: message.messageId },
      original: {
        raw,
        envelopeFrom: message.envelope.from,
        arrivedAt: new Date(message.receivedAt),
        sourceIp: session.remoteAddress,
      },
    })
  }

  // smtp-server gives handlers no socket; the session id is the connection id, so look it up there.
  function dropConnection(sessionId: string): void {
    for (const connection of server.connections) {
      if (connection.id === sessionId) connection._socket.destroy()
    }
  }

  function wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        delays.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      delays.add(done)
    })
  }

  function close(): Promise<void> {
    closed = true
    for (const done of [...delays]) done()
    return new Promise((resolve) => {
      server.close(() => resolve())
      // Without this, server.close waits up to closeTimeout for pooled clients that never hang up.
      for (const connection of server.connections) connection.send(421, 'mailsink shutting down')
    })
  }

  return { server, close }
}
