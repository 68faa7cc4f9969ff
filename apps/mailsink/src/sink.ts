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
import type { ReceiverIdentity } from './receiver-faults'
import { ReceiverGate } from './receiver-gate'
import { publishReceiver, publishReceiverDomain } from './receiver-zone'
import { createSmtpSink, type SmtpSink } from './smtp'
import { MessageStore } from './store'

export interface MailSinkOptions {
  host: string
  /** 0 picks a free port; the bound one is returned. */
  smtpPort: number
  /** 0 picks a free port; the bound one is returned. */
  httpPort: number
  /** Ring size: beyond it the oldest message is dropped. */
  maxMessages: number
  /** Check one signed message in this many (MAILSINK_AUTH_CHECK_EVERY); default 1: every one. */
  authCheckEvery?: number | undefined
  /** MAILSINK_STORE: `headers` keeps each message's envelope and headers only (`SmtpSinkOptions.keep`). */
  keep?: 'full' | 'headers' | undefined
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
  /**
   * The receiving mail servers to play besides the usual listener (MAILSINK_RECEIVERS), each an SMTP
   * server on its own address. A receiver without a port listens on `receiverPort`.
   */
  receivers?: readonly ReceiverOptions[] | undefined
  /**
   * The port of receivers that name none; default `smtpPort`. 0 picks one free port number that all
   * of them share (on their different addresses), as MX hosts all listen on 25.
   */
  receiverPort?: number | undefined
}

export interface ReceiverOptions {
  name: string
  /** An IPv4 address, e.g. 127.0.0.10 (all of 127.0.0.0/8 is local on Linux). */
  address: string
  port?: number | undefined
  /** Offer STARTTLS with this certificate (tests of opportunistic TLS); without it, plain SMTP only. */
  tls?: { key: string | Buffer; cert: string | Buffer } | undefined
}

/** A receiver the sink plays, listening. */
export interface RunningReceiver extends ReceiverIdentity {
  gate: ReceiverGate
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
  /** The receivers it plays (MAILSINK_RECEIVERS), in the order given; empty without. */
  receivers: RunningReceiver[]
  /**
   * The port the receivers without a port of their own share (what Fairlane's `MX_PORT` must be to
   * reach them); undefined when there are none.
   */
  receiverPort: number | undefined
  /**
   * Points a domain's MX at a receiver (by name or address) on the sink's DNS server, replacing its
   * MX records; throws when the sink serves no DNS or the receiver is not one of its own.
   */
  publishReceiverDomain(domain: string, receiver: string): void
  /** Sends the pending notifications (see Notifier), then stops the servers; safe to call more than once. */
  close(): Promise<void>
}

/** A port could not be bound. `service` says which, so the caller can name the setting to change. */
export class ListenError extends Error {
  override readonly name = 'ListenError'
  constructor(
    readonly service: 'smtp' | 'http' | 'dns' | 'receiver',
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
  const receivers: RunningReceiver[] = []
  const faults = new FaultTable({ receivers: () => receivers })
  const dns = options.dnsPort === undefined ? undefined : await startDns(host, options.dnsPort)
  const servers = options.dnsServers?.length ? options.dnsServers : dns ? [dns.address] : undefined
  const checks = new AuthChecks(
    createAuthChecker({ resolver: options.resolver ?? dnsResolver(servers) }),
    undefined,
    options.authCheckEvery,
  )
  const notifier = options.inboundSmtpUrl
    ? new Notifier({ inboundSmtpUrl: options.inboundSmtpUrl, mtaName: options.mtaName ?? MTA_NAME, logger })
    : undefined
  const keep = options.keep
  const smtp = createSmtpSink({ store, faults, logger, checks, notifier, keep })
  const publishDomain = (domain: string, reference: string) => {
    if (!dns) throw new Error('this mail sink serves no DNS; start it with a DNS port (MAILSINK_DNS_PORT)')
    const wanted = reference.trim().toLowerCase()
    const receiver = receivers.find((known) => known.name === wanted || known.address === wanted)
    if (!receiver) {
      throw new Error(
        `no receiver ${JSON.stringify(reference)}; this sink plays ${receivers.map((known) => known.name).join(', ') || 'none'}`,
      )
    }
    publishReceiverDomain(dns, domain.toLowerCase(), receiver)
  }
  const http = createServer(
    createHttpHandler({ store, faults, logger, dns, checks, notifier, receivers, publishDomain }),
  )
  http.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    logger.debug({ err: error.message, code: error.code }, 'http client error')
    if (!socket.writable) return
    // A request node:http cannot even parse never reaches the handler; still answer in the API's shape.
    socket.end(malformedRequestResponse(error.code))
  })

  let smtpPort: number
  let httpPort: number
  let receiverServers: SmtpSink[] = []
  try {
    smtpPort = await listen(smtp.server.server, 'smtp', host, options.smtpPort)
    try {
      const started = await startReceivers(
        options.receivers ?? [],
        options.receiverPort ?? smtpPort,
        (identity, tls) => {
          const gate = new ReceiverGate(identity, faults.receivers)
          return { gate, smtp: createSmtpSink({ store, faults, logger, checks, notifier, gate, tls, keep }) }
        },
      )
      receiverServers = started.map((receiver) => receiver.smtp)
      receivers.push(...started.map(({ gate }) => ({ ...gate.identity, gate })))
      if (dns) for (const receiver of receivers) publishReceiver(dns, receiver)
      httpPort = await listen(http, 'http', host, options.httpPort)
    } catch (error) {
      await Promise.all([smtp.close(), ...receiverServers.map((server) => server.close())])
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
      receivers: receivers.map(({ name, address, port }) => `${name}=${address}:${port}`),
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
      .then(() =>
        Promise.all([
          smtp.close(),
          ...receiverServers.map((server) => server.close()),
          closeHttp(http),
          dns?.close(),
        ]),
      )
      .then(() => logger.info('mailsink stopped'))
    return closing
  }
  return {
    smtpPort,
    httpPort,
    dns,
    store,
    faults,
    notifier,
    receivers,
    receiverPort: receivers.find((_, index) => options.receivers?.[index]?.port === undefined)?.port,
    publishReceiverDomain: publishDomain,
    close,
  }
}

interface StartedReceiver {
  gate: ReceiverGate
  smtp: SmtpSink
}

/** How often a shared free port is tried again when another process took it on one of the addresses. */
const SHARED_PORT_TRIES = 10

/**
 * Starts one SMTP server per receiver. Port 0 for receivers without their own port means one free
 * port number for all: the first binds port 0 and the others take the number it got, which another
 * process may hold on their address, so the whole set is tried again a few times.
 */
async function startReceivers(
  receivers: readonly ReceiverOptions[],
  defaultPort: number,
  create: (identity: ReceiverIdentity, tls: ReceiverOptions['tls']) => StartedReceiver,
): Promise<StartedReceiver[]> {
  for (let attempt = 1; ; attempt++) {
    const started: StartedReceiver[] = []
    let sharedPort = defaultPort
    try {
      for (const receiver of receivers) {
        const wanted = receiver.port ?? sharedPort
        const identity: ReceiverIdentity = { name: receiver.name, address: receiver.address, port: wanted }
        const server = create(identity, receiver.tls)
        started.push(server)
        const port = await listen(server.smtp.server.server, 'receiver', receiver.address, wanted)
        server.gate.identity.port = port
        if (receiver.port === undefined && sharedPort === 0) sharedPort = port
      }
      return started
    } catch (error) {
      await Promise.all(started.map((server) => server.smtp.close()))
      const retry =
        defaultPort === 0 &&
        attempt < SHARED_PORT_TRIES &&
        error instanceof ListenError &&
        error.code === 'EADDRINUSE'
      if (!retry) throw error
    }
  }
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
  service: 'smtp' | 'http' | 'receiver',
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
