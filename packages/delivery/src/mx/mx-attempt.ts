import { SigningFailedError } from '@fairlane/core/delivery'
import type { SentMessageInfo, Transport } from 'nodemailer'
import type SMTPConnection from 'nodemailer/lib/smtp-connection'
import {
  ConnectFailure,
  type ConnectionPool,
  type MxTls,
  type PooledConnection,
  type PoolTarget,
} from './connection-pool'
import { replyOf, type SmtpPhase, type SmtpReply } from './smtp-failure'

/**
 * The field of `sendMail`'s options that names the one address this attempt goes to. nodemailer
 * keeps unknown option fields on `mail.data`, where the attempt transport reads it.
 */
export const MX_ATTEMPT = 'mxAttempt'

export interface MxAttemptRequest {
  target: PoolTarget
  signal: AbortSignal | undefined
  /** Whether the body has started to go to the server (`BODY_HANDOFF`), read when a send fails. */
  bodyHandedOff: () => boolean
}

/** How one attempt failed: the phase, the reply if the server gave one, and nodemailer's error. */
export class AttemptFailure extends Error {
  override readonly name = 'AttemptFailure'
  readonly reply: SmtpReply | undefined

  constructor(
    readonly phase: SmtpPhase,
    override readonly cause: unknown,
    readonly bodyHandedOff: boolean,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
    this.reply = replyOf(cause)
  }
}

interface AttemptMail {
  data: Record<string, unknown>
  message: {
    getEnvelope(): { from: string | false; to: string[] }
    createReadStream(): NodeJS.ReadableStream
  }
}

/**
 * A nodemailer transport that sends one composed message (DKIM-signed by `outgoingMessage` when signed,
 * checked and watched by the stream plugins) over one pooled connection to one address. The loop
 * over MX hosts lives in `mx-transport.ts`; this answers with the TLS the connection had, or an
 * `AttemptFailure` saying where it failed.
 */
export function createAttemptTransport(pool: ConnectionPool): Transport {
  return {
    name: 'fairlane-mx',
    version: '1',
    send(mail, callback) {
      const { data, message } = mail as unknown as AttemptMail
      const request = data[MX_ATTEMPT] as MxAttemptRequest | undefined
      if (!request) {
        callback(new Error('an MX attempt needs its target (the MX_ATTEMPT field)'))
        return
      }
      sendOnce(pool, request, message).then(
        // The info is the mailer's result as it is: the reply and the TLS, read by `mx-transport.ts`.
        (info) => callback(null, info as unknown as SentMessageInfo),
        (error: unknown) => callback(error as Error),
      )
    },
  }
}

async function sendOnce(
  pool: ConnectionPool,
  request: MxAttemptRequest,
  message: AttemptMail['message'],
): Promise<{ response: string; tls: MxTls }> {
  // A pooled connection the server closed while it sat idle fails the next message without a
  // reply and before any of it left: such a message goes once more, on a fresh connection.
  for (let fresh = false; ; fresh = true) {
    let connection: PooledConnection
    try {
      connection = await pool.acquire(request.target, request.signal)
    } catch (error) {
      throw failure(error instanceof ConnectFailure ? error.phase : 'connect', error, false)
    }
    try {
      const response = await transmit(connection.smtp, message, request.signal)
      connection.release(true)
      return { response, tls: connection.tls }
    } catch (error) {
      if (error instanceof SigningFailedError) {
        // The signer's output was refused before a byte of it reached the server; the session
        // stopped mid-DATA is not reused.
        connection.release(false)
        throw error
      }
      const handedOff = request.bodyHandedOff()
      const reply = replyOf(error)
      // A reply (a refusal of the envelope or of the data) ends the transaction and leaves the
      // session usable once reset, as nodemailer's own pool does; a 421 or no reply does not.
      const reusable = reply !== undefined && reply.code !== 421 && (await reset(connection.smtp))
      connection.release(reusable)
      if (connection.reused && !fresh && reply === undefined && !handedOff && !request.signal?.aborted)
        continue
      throw failure(sendPhase(error, handedOff), error, handedOff)
    }
  }
}

/** MAIL FROM, RCPT TO, DATA and the body; the reply to the body on success. */
function transmit(
  smtp: SMTPConnection,
  message: AttemptMail['message'],
  signal: AbortSignal | undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let settled = false
    const settle = (error: unknown, response?: string) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      smtp.off('end', onEnd)
      if (error) reject(error)
      else resolve(response ?? '')
    }
    // nodemailer forgets the send in flight when the connection is closed from our side (the
    // deadline, the pool closing): its callback never runs, so the send is answered here.
    const onAbort = () => {
      settle(signal?.reason ?? new Error('the send was aborted'))
      smtp.close()
    }
    // After a failure nodemailer closes first and then calls the send's callback with the real
    // error, in the same tick: one tick later, only a close nobody reported is left.
    const onEnd = () =>
      setImmediate(() =>
        settle(Object.assign(new Error('the connection closed during the send'), { code: 'ECONNECTION' })),
      )
    if (signal?.aborted) {
      onAbort()
      return
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    smtp.once('end', onEnd)
    const envelope = message.getEnvelope()
    smtp.send(
      { from: envelope.from || '', to: envelope.to },
      message.createReadStream() as never,
      (error, info) => settle(error, typeof info?.response === 'string' ? info.response : ''),
    )
  })
}

function reset(smtp: SMTPConnection): Promise<boolean> {
  return new Promise((resolve) => smtp.reset((error) => resolve(!error)))
}

/**
 * The phase of a failed send on an open session: `data` once the DATA command was sent or the body
 * had started to leave, `envelope` before (MAIL FROM, RCPT TO, or the session dropping in between).
 */
function sendPhase(error: unknown, handedOff: boolean): SmtpPhase {
  if (handedOff) return 'data'
  const command = (error as { command?: unknown } | null)?.command
  return command === 'DATA' ? 'data' : 'envelope'
}

function failure(phase: SmtpPhase, error: unknown, bodyHandedOff: boolean): AttemptFailure {
  return new AttemptFailure(phase, error instanceof ConnectFailure ? error.cause : error, bodyHandedOff)
}
