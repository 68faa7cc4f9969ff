import { createClientCount } from '@fairlane/core'
import type { Logger } from 'pino'
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server'
import { listen } from './http-server'
import type { Refusal } from './metrics'

/** What one SMTP transaction delivered, read within the limits. */
export interface ReceivedMessage {
  raw: Buffer
  /** The return paths it was sent to, each verified at RCPT. */
  recipients: string[]
  /** MAIL FROM; empty for the null sender bounces come from. */
  mailFrom: string
  remoteAddress: string
}

export interface InboundLimits {
  /** Advertised with SIZE; a larger message is read to its end without being kept, then refused 552. */
  maxMessageBytes: number
  maxRecipients: number
  maxClients: number
  /**
   * Connections one client (an IPv4 address or an IPv6 /64) may hold at once; the next is answered
   * 421. Each may buffer a whole message, so without it one sender could take every client slot.
   */
  maxClientsPerAddress: number
  /** Idle time after which a client is disconnected (smtp-server's socket timeout). */
  socketTimeoutMs: number
  /** The longest one DATA may take, however steadily a slow client trickles it in. */
  dataTimeoutMs: number
}

export const DEFAULT_LIMITS: InboundLimits = {
  maxMessageBytes: 10 * 1024 * 1024,
  maxRecipients: 10,
  maxClients: 100,
  maxClientsPerAddress: 10,
  socketTimeoutMs: 60_000,
  dataTimeoutMs: 5 * 60_000,
}

export interface InboundSmtpOptions {
  logger: Logger
  /** RCPT TO: whether the address is a return path whose reports are read here (its MAC verifies). */
  acceptsRecipient(address: string): boolean
  /** The message, once read. Rejecting answers 451, so the sender keeps it and tries again. */
  receive(message: ReceivedMessage): Promise<void>
  onRefused(reason: Refusal): void
  limits?: Partial<InboundLimits>
}

export interface InboundSmtp {
  listen(port: number, host: string): Promise<number>
  listening(): boolean
  /** Answers open sessions 421, stops listening and waits for reports being applied. */
  close(): Promise<void>
}

type DataCallback = (error?: Error | null, message?: string) => void

function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code })
}

/**
 * The SMTP side of the inbound server: plain SMTP as an MX receives it (no AUTH), recipients limited
 * to verified return paths, every message held to a size and every client to a time.
 */
export function createInboundSmtp(options: InboundSmtpOptions): InboundSmtp {
  const limits = { ...DEFAULT_LIMITS, ...options.limits }
  const { logger } = options
  const inFlight = new Set<Promise<void>>()
  const clients = createClientCount(limits.maxClientsPerAddress)

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: limits.maxMessageBytes,
    maxClients: limits.maxClients,
    socketTimeout: limits.socketTimeoutMs,
    closeTimeout: 2_000,
    disableReverseLookup: true,
    logger: false,
    banner: 'Fairlane inbound: bounces and feedback reports only',
    onConnect: (session, callback) => {
      if (clients.admit(session.id, session.remoteAddress)) {
        callback()
        return
      }
      options.onRefused('too-many-connections')
      logger.info({ client: session.remoteAddress }, 'too many connections from one client; refused')
      callback(
        smtpError(
          421,
          `4.7.0 too many connections from your address (at most ${limits.maxClientsPerAddress} at once); try again later`,
        ),
      )
    },
    onClose: (session) => clients.release(session.id),
    onRcptTo: (address, session, callback) => {
      if (session.envelope.rcptTo.length >= limits.maxRecipients) {
        options.onRefused('too-many-recipients')
        callback(smtpError(452, '4.5.3 too many recipients in one message'))
        return
      }
      if (!options.acceptsRecipient(address.address)) {
        options.onRefused('bad-recipient')
        callback(smtpError(550, '5.1.1 no such return path here'))
        return
      }
      callback()
    },
    onData: (stream, session, callback) => receive(stream, session, callback),
  })

  // smtp-server re-emits client socket errors here; without a listener one reset connection would
  // throw and take the process down. Errors before listening belong to the listen call.
  server.on('error', (error: Error & { remoteAddress?: string }) => {
    if (!server.server.listening) return
    if (error.remoteAddress)
      logger.debug({ err: error.message, client: error.remoteAddress }, 'smtp client error')
    else logger.error({ err: error }, 'smtp server error')
  })

  function receive(stream: SMTPServerDataStream, session: SMTPServerSession, callback: DataCallback): void {
    // Captured now: smtp-server resets the envelope as soon as the reply is sent.
    const recipients = session.envelope.rcptTo.map((recipient) => recipient.address)
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
    let chunks: Buffer[] = []
    let bytes = 0
    const timer = setTimeout(() => {
      options.onRefused('timeout')
      logger.info(
        { session: session.id, client: session.remoteAddress, bytes },
        'DATA took too long; disconnected',
      )
      drop(session.id)
    }, limits.dataTimeoutMs)
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      // Past the limit nothing is kept: the rest is read only to find its end and answer 552.
      if (bytes <= limits.maxMessageBytes) chunks.push(chunk)
      else chunks = []
    })
    stream.on('error', (error) => {
      clearTimeout(timer)
      logger.debug({ err: error.message, session: session.id }, 'message aborted')
    })
    stream.on('end', () => {
      clearTimeout(timer)
      if (stream.sizeExceeded || bytes > limits.maxMessageBytes) {
        options.onRefused('too-large')
        callback(smtpError(552, `5.3.4 message exceeds the limit of ${limits.maxMessageBytes} bytes`))
        return
      }
      const work = options
        .receive({ raw: Buffer.concat(chunks), recipients, mailFrom, remoteAddress: session.remoteAddress })
        .then(
          () => callback(null, 'OK: report received'),
          (error: unknown) => {
            options.onRefused('error')
            logger.error(
              { err: error, session: session.id },
              'could not apply a report; the sender will retry',
            )
            callback(smtpError(451, '4.3.0 the report could not be applied now; try again later'))
          },
        )
        .finally(() => inFlight.delete(work))
      inFlight.add(work)
    })
  }

  // smtp-server gives handlers no socket; the session id is the connection id, so look it up there.
  function drop(sessionId: string): void {
    for (const connection of server.connections) {
      if (connection.id === sessionId) connection._socket.destroy()
    }
  }

  return {
    async listen(port, host) {
      await listen(server.server, host, port, 'INBOUND_SMTP_PORT')
      const address = server.server.address()
      return typeof address === 'object' && address ? address.port : port
    },
    listening: () => server.server.listening,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const connection of server.connections) connection.send(421, 'inbound shutting down')
      })
      await Promise.allSettled([...inFlight])
    },
  }
}
