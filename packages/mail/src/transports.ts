import { LANES, type Lane } from '@fairlane/core'
import nodemailer, { type Transporter } from 'nodemailer'
import { installBodyHandoff } from './body-handoff'
import { installDkimSignatureCheck } from './dkim-signature-check'

export interface LaneTransportOptions {
  smtpUrl: string
  timeoutMs: number
  connections: Record<Lane, number>
}

export type LaneTransports = Record<Lane, Transporter>

/**
 * One pooled SMTP transport per lane, so a bulk send never holds the connection a login code needs.
 * Pooling matters: opening a connection costs a greeting round trip (100 ms on smtp-server), which
 * would cap an unpooled sender at a few dozen messages a second. Every phase has its own timeout so
 * a hung server frees the worker slot; SEND_LOCK_MS is sized from these.
 */
export function createLaneTransports(options: LaneTransportOptions): LaneTransports {
  const entries = LANES.map((lane) => [lane, createTransport(options, options.connections[lane])] as const)
  return Object.fromEntries(entries) as LaneTransports
}

function createTransport(options: LaneTransportOptions, maxConnections: number): Transporter {
  const url = new URL(options.smtpUrl)
  const transport = nodemailer.createTransport({
    pool: true,
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 25)),
    secure: url.protocol === 'smtps:',
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    maxConnections,
    maxMessages: 1_000,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  })
  // Per-message DKIM (`dkim` in sendMail) keeps one pool for every tenant's domain; never unsigned.
  installDkimSignatureCheck(transport)
  // The mailer tells a lost reply (outcome unknown) from a failure before the body left by this.
  // Installed last, so its hook wraps the outermost stream: the one the socket reads, not the
  // signer's input, which is read whole as soon as the stream is created.
  installBodyHandoff(transport)
  return transport
}

export function closeLaneTransports(transports: LaneTransports): void {
  for (const transport of Object.values(transports)) transport.close()
}
