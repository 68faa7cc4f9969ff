import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo, Server as NetServer } from 'node:net'
import { type DnsServer, startDnsServer } from '@fairlane/dns-server'
import type { DNSResolver } from 'mailauth'
import type { Logger } from 'pino'
import { createAuthChecker, dnsResolver } from './auth'
import { AuthChecks } from './auth-checks'
import { FaultTable } from './faults'
import { createHttpHandler } from './http'
import { Notifier } from './notifier'
import { createSmtpSink } from './smtp'
import { MessageStore } from './store'

export interface MailSinkOptions {
  host: string
  /** 0 picks a free port; the bound one is returned. */
  smtpPort: number
  /** 0 picks a free port; the bound one is returned. */
  httpPort: number
  /** Ring size: beyond it the oldest message is dropped. */
  maxMessages: number
  logger: Logger
  /**
   * UDP port of a DNS server for local use (records managed over `/dns/records`); 0 picks a free
   * port. Undefined: the sink serves no DNS.
   */
  dnsPort?: number | undefined
  /**
   * Where DKIM/SPF lookups go (`DNS_SERVERS`). Default: the sink's own DNS server when it runs
   * one, else the system's resolvers.
   */
  dnsServers?: readonly string[] | undefined
  /** Replaces the lookups altogether (tests count them). */
  resolver?: DNSResolver | undefined
  /**
   * Where `bounce` and `complaint` faults send their reports (`INBOUND_SMTP_URL`, `smtp://host:port`).
   * Undefined: such faults are refused with 400.
   */
  inboundSmtpUrl?: string | undefined
  /** The host name the sink writes reports in (Reporting-MTA, MAILER-DAEMON@…); default MTA_NAME. */
  mtaName?: string | undefined
}

/** The sink's name as a reporting MTA, unless `mtaName` says otherwise. */
export const MTA_NAME = 'mailsink.fairlane.localhost'

export interface MailSink {
  smtpPort: number
  httpPort: number
  /** The DNS server, when `dnsPort` asked for one. */
  dns: DnsServer | undefined
  store: MessageStore
  faults: FaultTable
  /** The bounces and complaints owed and sent; undefined without `inboundSmtpUrl`. */
  notifier: Notifier | undefined
  /** Sends the pending notifications (see Notifier), then stops the servers; safe to call more than once. */
  close(): Promise<void>
}

/** A port could not be bound. `service` says which, so the caller can name the setting to change. */
export class ListenError extends Error {
  override readonly name = 'ListenError'
  constructor(
    readonly service: 'smtp' | 'http' | 'dns',
    readonly host: string,
    readonly port: number,
    /** The system error code, e.g. EADDRINUSE or EACCES. */
    readonly code: string,
    cause: Error,
  ) {
    super(`cannot listen on ${host}:${port} for ${service}: ${cause.message}`, { cause })
  }
}

/**
 * Starts the SMTP sink and its HTTP API. Nothing runs until this is called, so tests can start
 * as many isolated sinks as they like on port 0.
 */
export async function startMailSink(options: MailSinkOptions): Promise<MailSink> {
  const { host, logger } = options
  const store = new MessageStore(options.maxMessages)
  const faults = new FaultTable()
  const dns = options.dnsPort === undefined ? undefined : await startDns(host, options.dnsPort)
  const servers = options.dnsServers?.length ? options.dnsServers : dns ? [dns.address] : undefined
  const checks = new AuthChecks(createAuthChecker({ resolver: options.resolver ?? dnsResolver(servers) }))
  const notifier = options.inboundSmtpUrl
    ? new Notifier({ inboundSmtpUrl: options.inboundSmtpUrl, mtaName: options.mtaName ?? MTA_NAME, logger })
    : undefined
  const smtp = createSmtpSink({ store, faults, logger, checks, notifier })
  const http = createServer(createHttpHandler({ store, faults, logger, dns, checks, notifier }))
  http.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    logger.debug({ err: error.message, code: error.code }, 'http client error')
    if (!socket.writable) return
    // A request node:http cannot even parse never reaches the handler; still answer in the API's shape.
    socket.end(malformedRequestResponse(error.code))
  })

  let smtpPort: number
  let httpPort: number
  try {
    smtpPort = await listen(smtp.server.server, 'smtp', host, options.smtpPort)
    try {
      httpPort = await listen(http, 'http', host, options.httpPort)
    } catch (error) {
      await smtp.close()
      throw error
    }
  } catch (error) {
    await notifier?.close()
    await dns?.close()
    throw error
  }
  logger.info(
    {
      host,
      smtpPort,
      httpPort,
      dnsPort: dns?.port,
      dnsServers: servers,
      maxMessages: options.maxMessages,
      inboundSmtpUrl: options.inboundSmtpUrl && redactUrl(options.inboundSmtpUrl),
    },
    'mailsink listening',
  )

  let closing: Promise<void> | undefined
  const close = () => {
    // Notifications first, while the SMTP server still listens: INBOUND_SMTP_URL may be the sink itself.
    closing ??= (notifier?.close() ?? Promise.resolve())
      .then(() => Promise.all([smtp.close(), closeHttp(http), dns?.close()]))
      .then(() => logger.info('mailsink stopped'))
    return closing
  }
  return { smtpPort, httpPort, dns, store, faults, notifier, close }
}

/** The URL without its password, for the log. */
function redactUrl(value: string): string {
  const url = new URL(value)
  if (url.password) url.password = '***'
  return url.toString()
}

async function startDns(host: string, port: number): Promise<DnsServer> {
  try {
    return await startDnsServer({ host, port })
  } catch (error) {
    const cause = error as NodeJS.ErrnoException
    throw new ListenError('dns', host, port, cause.code ?? 'UNKNOWN', cause)
  }
}

function malformedRequestResponse(code: string | undefined): string {
  const [status, text, message] =
    code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
      : [400, 'Bad Request', `the request is not valid HTTP/1.1${code ? ` (${code})` : ''}`]
  const body = JSON.stringify({ error: { code: 'malformed_request', message } })
  return [
    `HTTP/1.1 ${status} ${text}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

function listen(
  server: NetServer | HttpServer,
  service: 'smtp' | 'http',
  host: string,
  port: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      reject(new ListenError(service, host, port, error.code ?? 'UNKNOWN', error))
    }
    const onListening = () => {
      server.off('error', onError)
      resolve((server.address() as AddressInfo).port)
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port, host)
  })
}

function closeHttp(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve()
      return
    }
    server.close(() => resolve())
    // Keep-alive connections (fetch keeps them) would otherwise hold close() open until they idle out.
    server.closeAllConnections()
  })
}
