import { createClientCount } from '@fairlane/core'
import { type AcceptSubmissionResult, isSubmissionRecipient } from '@fairlane/core/accept'
import type { Logger } from 'pino'
import {
  SMTPServer,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server'
import type { AuthThrottle } from './client-limits'
import { listen } from './http-server'
import type { KeyCheck, SubmissionUser } from './key-check'
import type { SubmissionMetrics } from './metrics'
import { smtpError, smtpReplyOf } from './smtp-replies'

export interface SubmissionLimits {
  /** Advertised with SIZE; a larger message is read to its end without being kept, then refused 552 5.3.4. */
  maxMessageBytes: number
  /** RCPT per transaction; the next is answered 452 4.5.3. */
  maxRecipients: number
  maxClients: number
  /** Connections one client address (IPv4, IPv6 /64) may hold at once; the next is answered 421 4.7.0. */
  maxClientsPerAddress: number
  socketTimeoutMs: number
  /** The longest one DATA may take, however steadily a slow client trickles it in. */
  dataTimeoutMs: number
}

export const DEFAULT_LIMITS: SubmissionLimits = {
  maxMessageBytes: 10 * 1024 * 1024,
  maxRecipients: 50,
  maxClients: 1000,
  maxClientsPerAddress: 20,
  socketTimeoutMs: 60_000,
  dataTimeoutMs: 5 * 60_000,
}

export interface SubmissionSmtpOptions {
  logger: Logger
  hostName: string
  keys: KeyCheck
  throttle: AuthThrottle
  metrics: SubmissionMetrics
  /** The certificate STARTTLS and the implicit-TLS port present; without it neither is offered. */
  tls?: { key: Buffer; cert: Buffer } | undefined
  /** AUTH before TLS (development only; the config refuses it in production). */
  allowPlaintextAuth: boolean
  /** MAIL FROM: throws an `AppError` when the envelope sender may not be used by this user. */
  checkEnvelope(user: SubmissionUser, address: string): Promise<void>
  /** The message, once read: written (one message per recipient) before this resolves. */
  accept(input: { user: SubmissionUser; recipients: string[]; data: Buffer }): Promise<AcceptSubmissionResult>
  limits?: Partial<SubmissionLimits>
}

export interface SubmissionSmtp {
  /** Plain SMTP with STARTTLS (SUBMISSION_PORT). */
  listen(port: number, host: string): Promise<number>
  /** Implicit TLS (SUBMISSION_TLS_PORT). */
  listenTls(port: number, host: string): Promise<number>
  listening(): boolean
  /** Answers open sessions 421, stops listening and waits for the messages being written. */
  close(): Promise<void>
}

type DataCallback = (error?: Error | null, message?: string) => void
type Connection = { id: string; handler_BDAT?: unknown; send(code: number, text: string): void }

/**
 * SMTP submission (RFC 6409): AUTH with an API key as the password, then each RCPT becomes a message
 * of the key's tenant. smtp-server's own enhanced codes are switched off because its defaults do not
 * say what Fairlane means (452 → 4.2.2, 552 → 5.2.2); every reply of ours writes its own code.
 */
export function createSubmissionSmtp(options: SubmissionSmtpOptions): SubmissionSmtp {
  const limits = { ...DEFAULT_LIMITS, ...options.limits }
  const { logger, metrics } = options
  const inFlight = new Set<Promise<void>>()
  const clients = createClientCount(limits.maxClientsPerAddress)
  const servers: SMTPServer[] = []

  const settings = (secure: boolean): SMTPServerOptions => ({
    secure,
    name: options.hostName,
    banner: 'Fairlane SMTP submission: AUTH with an API key as the password',
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: options.allowPlaintextAuth,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    disabledCommands: options.tls ? [] : ['STARTTLS'],
    hideENHANCEDSTATUSCODES: true,
    hideDSN: true,
    hideREQUIRETLS: true,
    size: limits.maxMessageBytes,
    maxClients: limits.maxClients,
    socketTimeout: limits.socketTimeoutMs,
    closeTimeout: 2_000,
    disableReverseLookup: true,
    logger: false,
    authRequiredMessage: '5.7.0 authentication required: AUTH PLAIN or LOGIN with an API key as the password',
    onConnect: (session, callback) => {
      if (clients.admit(session.id, session.remoteAddress)) {
        refuseChunking(session.id)
        callback()
        return
      }
      metrics.refused('too-many-connections')
      logger.info({ client: session.remoteAddress }, 'too many connections from one client; refused')
      callback(
        smtpError(
          421,
          `4.7.0 too many connections from your address (at most ${limits.maxClientsPerAddress} at once); try again later`,
        ),
      )
    },
    onClose: (session) => clients.release(session.id),
    onAuth: (auth, session, callback) => {
      const waitMs = options.throttle.blockedForMs(session.remoteAddress)
      if (waitMs > 0) {
        metrics.refused('auth-throttled')
        callback(
          smtpError(
            454,
            `4.7.0 too many failed logins from your address; try again in ${Math.ceil(waitMs / 1000)} s`,
          ),
        )
        return
      }
      if (auth.method !== 'PLAIN' && auth.method !== 'LOGIN') {
        callback(smtpError(504, '5.5.4 use AUTH PLAIN or AUTH LOGIN'))
        return
      }
      options.keys.authenticate(auth.password ?? '').then(
        (user) => {
          if (user) {
            callback(null, { user })
            return
          }
          options.throttle.failed(session.remoteAddress)
          metrics.refused('bad-key')
          callback(
            smtpError(535, '5.7.8 authentication failed: the password must be a live Fairlane API key'),
          )
        },
        (error: unknown) => {
          logger.error({ err: error }, 'could not check an API key')
          callback(smtpError(454, '4.7.0 the login could not be checked now; try again later'))
        },
      )
    },
    onMailFrom: (address, session, callback) => {
      const user = userOf(session)
      if (!user) {
        callback(smtpError(530, '5.7.0 authentication required'))
        return
      }
      if (address.address === '') {
        metrics.refused('sender')
        callback(smtpError(550, '5.7.1 submission needs a sender address (MAIL FROM:<> is for bounces)'))
        return
      }
      options.keys
        .stillValid(user)
        .then(async (valid) => {
          if (!valid) {
            metrics.refused('revoked-key')
            callback(smtpError(535, '5.7.8 the API key of this session was revoked; authenticate again'))
            return
          }
          await options.checkEnvelope(user, address.address)
          callback()
        })
        .catch((error: unknown) => {
          const reply = smtpReplyOf(error)
          metrics.refused(reply.refusal)
          if (reply.refusal === 'error') logger.error({ err: error }, 'MAIL FROM could not be checked')
          callback(reply.error)
        })
    },
    onRcptTo: (address, session, callback) => {
      if (session.envelope.rcptTo.length >= limits.maxRecipients) {
        metrics.refused('too-many-recipients')
        callback(
          smtpError(
            452,
            `4.5.3 too many recipients: at most ${limits.maxRecipients} per message; send the rest in another`,
          ),
        )
        return
      }
      if (!isSubmissionRecipient(address.address)) {
        metrics.refused('invalid')
        callback(smtpError(553, `5.1.3 ${address.address} is not a valid recipient address`))
        return
      }
      callback()
    },
    onData: (stream, session, callback) => receive(stream, session, callback),
  })

  function userOf(session: SMTPServerSession): SubmissionUser | null {
    return (session.user as SubmissionUser | undefined) ?? null
  }

  // CHUNKING is not advertised; a client that sends BDAT anyway is told so instead of "not recognized".
  function refuseChunking(sessionId: string): void {
    for (const server of servers) {
      for (const connection of server.connections as unknown as Set<Connection>) {
        if (connection.id !== sessionId) continue
        connection.handler_BDAT = (_command: unknown, done: () => void) => {
          connection.send(502, '5.5.1 BDAT (CHUNKING) is not supported here: send the message with DATA')
          done()
        }
      }
    }
  }

  function receive(stream: SMTPServerDataStream, session: SMTPServerSession, callback: DataCallback): void {
    // Captured now: smtp-server resets the envelope as soon as the reply is sent.
    const recipients = session.envelope.rcptTo.map((recipient) => recipient.address)
    const user = userOf(session)
    let chunks: Buffer[] = []
    let bytes = 0
    const timer = setTimeout(() => {
      metrics.refused('timeout')
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
      const startedAt = performance.now()
      if (stream.sizeExceeded || bytes > limits.maxMessageBytes) {
        metrics.refused('too-large')
        callback(smtpError(552, `5.3.4 message exceeds the limit of ${limits.maxMessageBytes} bytes`))
        return
      }
      if (!user) {
        callback(smtpError(530, '5.7.0 authentication required'))
        return
      }
      const work = options
        .accept({ user, recipients, data: Buffer.concat(chunks) })
        .then(
          (result) => {
            metrics.accepted(result.messages.filter((message) => !message.replayed).length)
            const ids = result.messages.map((message) => message.id)
            callback(null, `2.0.0 queued as ${ids.join(' ')}`)
          },
          (error: unknown) => {
            const reply = smtpReplyOf(error)
            metrics.refused(reply.refusal)
            if (reply.refusal === 'error') {
              logger.error(
                { err: error, session: session.id },
                'could not accept a submission; the client will retry',
              )
            }
            callback(reply.error)
          },
        )
        .finally(() => {
          metrics.replied(performance.now() - startedAt)
          inFlight.delete(work)
        })
      inFlight.add(work)
    })
  }

  // smtp-server gives handlers no socket; the session id is the connection id, so look it up there.
  function drop(sessionId: string): void {
    for (const server of servers) {
      for (const connection of server.connections) {
        if (connection.id === sessionId) connection._socket.destroy()
      }
    }
  }

  function start(secure: boolean, port: number, host: string, setting: string): Promise<number> {
    const server = new SMTPServer(settings(secure))
    // smtp-server re-emits client socket errors here; without a listener one reset connection would
    // throw and take the process down. Errors before listening belong to the listen call.
    server.on('error', (error: Error & { remoteAddress?: string }) => {
      if (!server.server.listening) return
      if (error.remoteAddress)
        logger.debug({ err: error.message, client: error.remoteAddress }, 'smtp client error')
      else logger.error({ err: error }, 'smtp server error')
    })
    servers.push(server)
    return listen(server.server, host, port, setting).then(() => {
      const address = server.server.address()
      return typeof address === 'object' && address ? address.port : port
    })
  }

  return {
    listen: (port, host) => start(false, port, host, 'SUBMISSION_PORT'),
    listenTls: (port, host) => {
      if (!options.tls) throw new Error('the TLS port needs SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY')
      return start(true, port, host, 'SUBMISSION_TLS_PORT')
    },
    listening: () => servers.length > 0 && servers.every((server) => server.server.listening),
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve())
              for (const connection of server.connections)
                connection.send(421, '4.3.2 submission server shutting down')
            }),
        ),
      )
      await Promise.allSettled([...inFlight])
    },
  }
}
