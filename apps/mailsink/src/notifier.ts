import { randomUUID } from 'node:crypto'
import nodemailer, { type Transporter } from 'nodemailer'
import type { Logger } from 'pino'
import { buildArf } from './arf'
import { buildDsn, type OriginalMessage, type Report } from './dsn'
import type { NotificationFault } from './faults'

/**
 * pending: waiting for its `delayMs`; sent: the inbound server answered 250; failed: it refused the
 * report or could not be reached (`error` says how); skipped: the original had the null envelope
 * sender, so there is nobody to notify (RFC 5321 §4.5.5: never notify `<>`).
 */
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'skipped'
export const NOTIFICATION_STATUSES: readonly NotificationStatus[] = ['pending', 'sent', 'failed', 'skipped']

/** One report the sink owes or owed; `GET /notifications` lists them. */
export interface NotificationRecord {
  id: string
  kind: 'bounce' | 'complaint'
  status: NotificationStatus
  /** The original's envelope sender: the report's only recipient (RCPT TO). Empty for `<>`. */
  to: string
  /** The original recipients the report is about (those the fault matched). */
  recipients: string[]
  /** The DSN's status (`5.1.1`); bounces only. */
  bounce?: string
  /** The original message: the sink's id and its Message-ID header. */
  message: { id: string; messageId: string | null }
  faultId: string
  /** The report's own Message-ID, once written. */
  reportMessageId?: string
  createdAt: string
  /** When it is (or was) due: `createdAt` + the fault's `delayMs`. */
  dueAt: string
  /** When the inbound server answered, or the attempt failed. */
  finishedAt?: string
  /** The inbound server's reply to the report (`250 …`), or to the command it refused. */
  response?: string
  error?: string
}

export type NotificationCounts = Record<NotificationStatus, number>

export interface NotifierOptions {
  /** `smtp://host:port` (or `smtps://`) of the inbound server that reads bounces: INBOUND_SMTP_URL. */
  inboundSmtpUrl: string
  mtaName: string
  logger: Logger
  /** Connection, greeting and socket timeout of each send; bounds a flush on close. */
  timeoutMs?: number
  /** Finished records kept for `GET /notifications` (oldest dropped first); counts are kept in full. */
  maxRecords?: number
}

export interface NotificationRequest {
  fault: NotificationFault
  /** The recipients the fault matched. */
  recipients: readonly string[]
  message: { id: string; messageId: string | null }
  original: OriginalMessage
}

const DEFAULT_TIMEOUT_MS = 5_000
const DEFAULT_MAX_RECORDS = 10_000

/**
 * Sends the bounces and complaints that faults ask for, `delayMs` after the message was accepted,
 * as a remote MTA would: to the message's envelope sender, with the null sender, through the
 * inbound server. Each is one timer, never a blocked wait, and every outcome is recorded (a failed
 * send is logged and counted, never retried and never dropped silently).
 *
 * On close, pending notifications are flushed, not cancelled: each is sent at once, ahead of its
 * delay, and close resolves once every send has an outcome (bounded by `timeoutMs` per phase). A
 * relay that accepted mail owes its sender the bounce; the sink has no disk queue to keep it in.
 */
export class Notifier {
  private readonly transport: Transporter
  private readonly records: NotificationRecord[] = []
  private readonly counts: NotificationCounts = { pending: 0, sent: 0, failed: 0, skipped: 0 }
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; fire: () => void }>()
  private readonly inFlight = new Set<Promise<void>>()
  private readonly maxRecords: number
  private closing: Promise<void> | undefined

  constructor(private readonly options: NotifierOptions) {
    const url = new URL(options.inboundSmtpUrl)
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS
    this.transport = nodemailer.createTransport({
      // A bounce storm (a campaign to a dead domain) shares a few connections instead of opening one each.
      pool: true,
      maxConnections: 2,
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 25)),
      secure: url.protocol === 'smtps:',
      // smtp:// means plain SMTP: a STARTTLS offer with a self-signed certificate (smtp-server's
      // default) would otherwise fail every report locally.
      ignoreTLS: url.protocol === 'smtp:',
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      name: options.mtaName,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    })
  }

  /** Records the notification a fault asked for and sends it after the fault's `delayMs`. */
  schedule(request: NotificationRequest): NotificationRecord {
    const { fault, original } = request
    const now = Date.now()
    const delayMs = this.closing ? 0 : (fault.delayMs ?? 0)
    const record: NotificationRecord = {
      id: randomUUID(),
      kind: fault.complaint === true ? 'complaint' : 'bounce',
      status: 'pending',
      to: original.envelopeFrom,
      recipients: [...request.recipients],
      ...(fault.bounce !== undefined && { bounce: fault.bounce }),
      message: request.message,
      faultId: fault.id,
      createdAt: new Date(now).toISOString(),
      dueAt: new Date(now + delayMs).toISOString(),
    }
    this.keep(record)
    if (original.envelopeFrom === '') {
      this.finish(record, 'skipped', {
        error: 'the message had the null envelope sender <>: nobody to notify',
      })
      this.options.logger.warn({ notification: record }, 'notification skipped: null envelope sender')
      return { ...record }
    }
    this.counts.pending += 1
    const fire = () => {
      clearTimeout(timer)
      this.timers.delete(record.id)
      const sending = this.send(record, request, fault)
      this.inFlight.add(sending)
      void sending.finally(() => this.inFlight.delete(sending))
    }
    const timer = setTimeout(fire, delayMs)
    this.timers.set(record.id, { timer, fire })
    return { ...record }
  }

  /** The records kept, oldest first, optionally of one status. */
  list(status?: NotificationStatus): NotificationRecord[] {
    return this.records
      .filter((record) => status === undefined || record.status === status)
      .map((record) => ({ ...record, recipients: [...record.recipients] }))
  }

  /** How many notifications are pending now, and how many were sent, failed and skipped so far. */
  summary(): NotificationCounts {
    return { ...this.counts }
  }

  /** Forgets finished records and resets their counts; pending ones stay. Returns how many went. */
  clear(): number {
    const kept = this.records.filter((record) => record.status === 'pending')
    const removed = this.records.length - kept.length
    this.records.splice(0, this.records.length, ...kept)
    Object.assign(this.counts, { sent: 0, failed: 0, skipped: 0 })
    return removed
  }

  /** Sends every pending notification now, waits for every send, then closes the connections. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const pending = this.timers.size
      if (pending > 0) this.options.logger.info({ pending }, 'sending pending notifications before stopping')
      for (const { fire } of [...this.timers.values()]) fire()
      // A message accepted while flushing schedules another send (with no delay): wait for it too.
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
      this.transport.close()
    })()
    return this.closing
  }

  private async send(record: NotificationRecord, request: NotificationRequest, fault: NotificationFault) {
    const { logger, mtaName } = this.options
    try {
      const report: Report =
        fault.bounce !== undefined
          ? buildDsn({
              mtaName,
              original: request.original,
              recipients: request.recipients,
              status: fault.bounce,
            })
          : buildArf({ mtaName, original: request.original, recipients: request.recipients })
      record.reportMessageId = report.messageId
      // from '' is MAIL FROM:<>: a report must never be answered by another report.
      const info = await this.transport.sendMail({ envelope: { from: '', to: [record.to] }, raw: report.raw })
      this.finish(record, 'sent', { response: String(info.response ?? '') })
      logger.info({ notification: record }, `${record.kind} sent to ${record.to}`)
    } catch (error) {
      const failure = error as Error & { response?: string }
      this.finish(record, 'failed', {
        error: failure.message,
        ...(failure.response !== undefined && { response: failure.response }),
      })
      logger.error({ notification: record, err: error }, `${record.kind} to ${record.to} could not be sent`)
    }
  }

  private finish(
    record: NotificationRecord,
    status: Exclude<NotificationStatus, 'pending'>,
    outcome: { response?: string; error?: string },
  ): void {
    if (record.status === 'pending' && status !== 'skipped') this.counts.pending -= 1
    record.status = status
    record.finishedAt = new Date().toISOString()
    Object.assign(record, outcome)
    this.counts[status] += 1
  }

  private keep(record: NotificationRecord): void {
    this.records.push(record)
    if (this.records.length <= this.maxRecords) return
    // Drop the oldest finished record; pending ones stay until they have an outcome.
    const index = this.records.findIndex((kept) => kept.status !== 'pending')
    if (index >= 0) this.records.splice(index, 1)
  }
}
