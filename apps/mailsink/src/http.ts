import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  DNS_RECORD_TYPES,
  type DnsRecordType,
  type DnsServer,
  isDnsName,
  parseDnsRecord,
} from '@fairlane/dns-server'
import type { Logger } from 'pino'
import type { AuthChecks } from './auth-checks'
import { type FaultTable, parseFaultSpec } from './faults'
import { HttpError, readJsonBody, sendError, sendHtml, sendJson, sendNoContent } from './http-io'
import { INBOX_LIMIT, renderInbox, renderMessage, renderNotFound } from './inbox-page'
import { NOTIFICATION_STATUSES, type NotificationStatus, type Notifier } from './notifier'
import {
  InvalidReceiverFaultError,
  isReceiverFaultBody,
  type ReceiverFaultSpec,
  UnknownReceiverError,
} from './receiver-faults'
import type { ReceiverGate } from './receiver-gate'
import { type MessageFilter, type MessageStore, parseSince, type StoredMessage } from './store'

export interface HttpSinkOptions {
  store: MessageStore
  faults: FaultTable
  logger: Logger
  /** The sink's DNS server, when it runs one: `/dns/records` manages its records. */
  dns?: DnsServer | undefined
  /** Checks still running: what a reader is about to see waits for them. */
  checks: AuthChecks
  /** Sends the reports of `bounce`/`complaint` faults; without it those faults are refused. */
  notifier?: Notifier | undefined
  /** The receivers the sink plays (`GET /receivers`); empty or absent without MAILSINK_RECEIVERS. */
  receivers?: readonly { gate: ReceiverGate }[] | undefined
  /** Points a domain's MX at a receiver (see MailSink.publishReceiverDomain). */
  publishDomain?: ((domain: string, receiver: string) => void) | undefined
}

/** Longer than a check may take (auth.ts's timeout), so a reader never sees "not checked yet". */
const SETTLE_MS = 10_000

interface Request {
  req: IncomingMessage
  res: ServerResponse
  /** The route's captured path segments, URL-decoded. */
  params: string[]
  query: URLSearchParams
}

type Handler = (request: Request) => void | Promise<void>

interface Route {
  path: RegExp
  methods: Partial<Record<string, Handler>>
}

/**
 * The request handler for the sink's HTTP API and inbox. Every failure ends in a JSON answer:
 * HttpError for the client's mistakes (4xx), anything else logged and answered 500, so one bad
 * request never takes down a sink that a whole test run depends on.
 */
export function createHttpHandler(
  options: HttpSinkOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, faults, logger, dns, checks, notifier, publishDomain } = options
  const receivers = options.receivers ?? []
  const settled = async <T extends StoredMessage | StoredMessage[]>(found: T): Promise<T> => {
    await checks.settled(Array.isArray(found) ? found : [found], SETTLE_MS)
    return found
  }
  const zone = (): DnsServer => {
    if (dns) return dns
    throw new HttpError(
      404,
      'dns_not_running',
      'this mail sink serves no DNS; start it with MAILSINK_DNS_PORT set (pnpm start does)',
    )
  }

  const routes: Route[] = [
    {
      path: /^\/$/,
      methods: {
        GET: async ({ res }) =>
          sendHtml(res, 200, renderInbox(await settled(store.latest(INBOX_LIMIT)), store.size)),
      },
    },
    {
      path: /^\/view\/([^/]+)$/,
      methods: {
        GET: async ({ res, params: [id = ''] }) => {
          const message = store.get(id)
          if (message) sendHtml(res, 200, renderMessage(await settled(message)))
          else sendHtml(res, 404, renderNotFound(id))
        },
      },
    },
    {
      path: /^\/health$/,
      methods: {
        GET: ({ res }) =>
          sendJson(res, 200, {
            ok: true,
            messages: store.size,
            ...(notifier && { notifications: notifier.summary() }),
          }),
      },
    },
    {
      path: /^\/messages$/,
      methods: {
        GET: async ({ res, query }) =>
          sendJson(res, 200, project(await settled(store.list(messageFilter(query))), query)),
        DELETE: ({ res }) => sendJson(res, 200, { deleted: store.clear() }),
      },
    },
    {
      path: /^\/messages\/([^/]+)$/,
      methods: {
        GET: async ({ res, params: [id = ''] }) => {
          const message = store.get(id)
          if (!message) throw new HttpError(404, 'message_not_found', `no message with id "${id}"`)
          sendJson(res, 200, await settled(message))
        },
      },
    },
    {
      path: /^\/messages\/([^/]+)\/raw$/,
      methods: {
        GET: ({ res, params: [id = ''] }) => {
          const raw = store.raw(id)
          if (!raw && store.get(id)) {
            throw new HttpError(
              404,
              'raw_not_kept',
              `message "${id}" was kept without its body (MAILSINK_STORE=headers)`,
            )
          }
          if (!raw) throw new HttpError(404, 'message_not_found', `no message with id "${id}"`)
          res.writeHead(200, { 'content-type': 'message/rfc822', 'content-length': raw.length })
          res.end(raw)
        },
      },
    },
    {
      path: /^\/faults$/,
      methods: {
        GET: ({ res }) => sendJson(res, 200, [...faults.list(), ...faults.receivers.list()]),
        POST: async ({ req, res }) => {
          const body = await readJsonBody(req)
          if (isReceiverFaultBody(body)) {
            addReceiverFault(body, res)
            return
          }
          const parsed = parseFaultSpec(body)
          if (!parsed.ok) throw new HttpError(400, 'invalid_fault', parsed.message, {}, parsed.field)
          const notifying =
            parsed.value.bounce !== undefined ? 'bounce' : parsed.value.complaint ? 'complaint' : ''
          if (notifying && !notifier) {
            throw new HttpError(
              400,
              'invalid_fault',
              `"${notifying}" needs somewhere to send the report: start the sink with INBOUND_SMTP_URL set (pnpm start does)`,
              {},
              notifying,
            )
          }
          const fault = faults.add(parsed.value)
          logger.info({ fault }, 'fault added')
          sendJson(res, 201, fault)
        },
        DELETE: ({ res }) => sendJson(res, 200, { cleared: faults.clear() }),
      },
    },
    {
      path: /^\/receivers$/,
      methods: {
        GET: ({ res }) =>
          sendJson(
            res,
            200,
            receivers.map(({ gate }) => gate.status()),
          ),
      },
    },
    {
      path: /^\/receivers\/counts$/,
      methods: {
        DELETE: ({ res }) => {
          for (const { gate } of receivers) gate.resetCounts()
          sendNoContent(res)
        },
      },
    },
    {
      path: /^\/receivers\/domains$/,
      methods: {
        POST: async ({ req, res }) => {
          const body = await readJsonBody(req)
          const { domain, receiver } = (typeof body === 'object' && body !== null ? body : {}) as Record<
            string,
            unknown
          >
          if (typeof domain !== 'string' || !isDnsName(domain))
            throw new HttpError(
              400,
              'invalid_domain',
              '"domain" must be a DNS name such as shop.test',
              {},
              'domain',
            )
          if (typeof receiver !== 'string')
            throw new HttpError(
              400,
              'invalid_domain',
              '"receiver" must be a receiver\'s name or address',
              {},
              'receiver',
            )
          zone()
          try {
            publishDomain?.(domain, receiver)
          } catch (error) {
            throw new HttpError(400, 'invalid_domain', (error as Error).message, {}, 'receiver')
          }
          logger.info({ domain, receiver }, 'receiver domain published')
          sendJson(res, 201, { domain: domain.toLowerCase(), receiver })
        },
      },
    },
    {
      path: /^\/notifications$/,
      methods: {
        GET: ({ res, query }) => {
          const status = notificationStatus(query)
          const sender = notifier ?? noNotifier()
          sendJson(res, 200, { ...sender.summary(), notifications: sender.list(status) })
        },
        DELETE: ({ res }) => sendJson(res, 200, { cleared: (notifier ?? noNotifier()).clear() }),
      },
    },
    {
      path: /^\/dns\/records$/,
      methods: {
        GET: ({ res }) => sendJson(res, 200, zone().list()),
        POST: async ({ req, res }) => {
          const server = zone()
          const parsed = parseDnsRecord(await readJsonBody(req))
          if (!parsed.ok) throw new HttpError(400, 'invalid_record', parsed.message, {}, parsed.field)
          server.publish(parsed.value)
          logger.info({ record: parsed.value }, 'dns record published')
          sendJson(res, 201, parsed.value)
        },
        DELETE: ({ res, query }) => {
          const server = zone()
          const name = query.get('name')?.trim() ?? ''
          if (!isDnsName(name))
            throw new HttpError(
              400,
              'invalid_record',
              '"name" must be a DNS name such as shop.example',
              {},
              'name',
            )
          const type = query.get('type')?.trim().toUpperCase()
          if (type !== undefined && type !== '' && !(DNS_RECORD_TYPES as readonly string[]).includes(type))
            throw new HttpError(
              400,
              'invalid_record',
              `"type" must be one of ${DNS_RECORD_TYPES.join(', ')}`,
              {},
              'type',
            )
          const removed = server.remove(name, type ? (type as DnsRecordType) : undefined)
          logger.info({ name, type, removed }, 'dns records removed')
          sendNoContent(res)
        },
      },
    },
  ]

  function addReceiverFault(body: unknown, res: ServerResponse): void {
    try {
      // The table validates what it is given, whoever calls it, and says which field is wrong.
      const fault = faults.add(body as ReceiverFaultSpec)
      logger.info({ fault }, 'receiver fault added')
      sendJson(res, 201, fault)
    } catch (error) {
      if (error instanceof UnknownReceiverError)
        throw new HttpError(400, 'invalid_fault', error.message, {}, 'receiver')
      if (error instanceof InvalidReceiverFaultError)
        throw new HttpError(400, 'invalid_fault', error.message, {}, error.field)
      throw error
    }
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, query } = splitUrl(req.url ?? '/')
    const method = req.method ?? 'GET'
    for (const route of routes) {
      const found = route.path.exec(path)
      if (!found) continue
      // HEAD is answered as GET; node:http leaves the body out by itself.
      const handler = route.methods[method] ?? (method === 'HEAD' ? route.methods.GET : undefined)
      if (!handler) {
        const allowed = Object.keys(route.methods)
        if (allowed.includes('GET')) allowed.push('HEAD')
        throw new HttpError(
          405,
          'method_not_allowed',
          `${method} is not allowed on ${path}; use ${allowed.join(', ')}`,
          {
            allow: allowed.join(', '),
          },
        )
      }
      await handler({ req, res, params: found.slice(1).map(decodeSegment), query })
      return
    }
    throw new HttpError(404, 'not_found', `no route for ${method} ${path}`)
  }

  return (req, res) => {
    dispatch(req, res).catch((error: unknown) => {
      if (!(error instanceof HttpError)) {
        logger.error({ err: error, method: req.method, url: req.url }, 'http request failed')
      }
      if (res.headersSent) {
        // Too late for a JSON error; cutting the connection at least tells the client it is incomplete.
        res.destroy()
        return
      }
      sendError(
        res,
        error instanceof HttpError
          ? error
          : new HttpError(500, 'internal', 'internal error; see the sink log'),
      )
    })
  }
}

function noNotifier(): never {
  throw new HttpError(
    404,
    'notifications_off',
    'this mail sink sends no notifications: start it with INBOUND_SMTP_URL set (pnpm start does)',
  )
}

function notificationStatus(query: URLSearchParams): NotificationStatus | undefined {
  const status = query.get('status')?.trim()
  if (!status) return undefined
  if (!(NOTIFICATION_STATUSES as readonly string[]).includes(status)) {
    throw new HttpError(
      400,
      'invalid_status',
      `"status" must be one of ${NOTIFICATION_STATUSES.join(', ')}`,
      {},
      'status',
    )
  }
  return status as NotificationStatus
}

const FIELDS = [
  'id',
  'messageId',
  'from',
  'to',
  'subject',
  'text',
  'html',
  'headers',
  'receivedAt',
  'envelope',
  'auth',
  'receiver',
  'sourceAddress',
  'tls',
] as const
type Field = (typeof FIELDS)[number]

/**
 * `?fields=to,messageId,receivedAt`: only those fields of each message (an extension for benchmarks
 * that read tens of thousands of messages and need no bodies). Without it, every field.
 */
function project(messages: StoredMessage[], query: URLSearchParams): unknown[] {
  const wanted = query.get('fields')?.trim()
  if (!wanted) return messages
  const fields = wanted.split(',').map((field) => field.trim())
  const unknown = fields.filter((field) => !(FIELDS as readonly string[]).includes(field))
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      'invalid_fields',
      `unknown field(s) ${unknown.join(', ')}; known: ${FIELDS.join(', ')}`,
    )
  }
  return messages.map((message) =>
    Object.fromEntries((fields as Field[]).map((field) => [field, message[field]])),
  )
}

function messageFilter(query: URLSearchParams): MessageFilter {
  const filter: MessageFilter = {}
  const to = query.get('to')?.trim()
  if (to) filter.to = to
  const receiver = query.get('receiver')?.trim()
  if (receiver) filter.receiver = receiver
  const since = query.get('since')?.trim()
  if (since) {
    filter.since = parseSince(since)
    if (filter.since === undefined) {
      throw new HttpError(
        400,
        'invalid_since',
        `"since" must be an ISO 8601 timestamp or epoch milliseconds, got ${JSON.stringify(since)}`,
      )
    }
  }
  return filter
}

/**
 * Splits the request target by hand: `new URL('//messages', base)` would read "messages" as a host.
 * One trailing slash is ignored so `/messages/` still finds its route.
 */
function splitUrl(target: string): { path: string; query: URLSearchParams } {
  const questionMark = target.indexOf('?')
  let path = questionMark < 0 ? target : target.slice(0, questionMark)
  const search = questionMark < 0 ? '' : target.slice(questionMark + 1)
  // Absolute-form targets (`GET http://host/messages`) are legal HTTP/1.1, if rare.
  if (/^https?:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname
    } catch {
      throw new HttpError(400, 'invalid_url', `cannot read the request target ${JSON.stringify(target)}`)
    }
  }
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1)
  return { path, query: new URLSearchParams(search) }
}

function decodeSegment(segment: string | undefined): string {
  if (segment === undefined) return ''
  try {
    return decodeURIComponent(segment)
  } catch {
    // A malformed escape cannot name a stored id; leave it as is and let the lookup miss.
    return segment
  }
}
