import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import {
  answerPayloadTooLarge,
  bodyLimitOf,
  CappedRequest,
  declaredLength,
  hasUnboundedBody,
} from '../http/body-limits'
import { compileProxyTrust, type ProxyTrust, stampClientAddress } from '../http/client-address'
import { errorResponse } from '../http/errors'
import { securityHeaders } from '../http/security-headers'
import type { Logger } from '../logger'
import type { WebMetrics } from '../metrics'
import type { RouteDeps } from '../routes'
import { sendWebResponse, toWebRequest } from './node-bridge'
import type { RouteLookup, RouteMatch, Router } from './router'

/** How long an idle keep-alive connection is kept: longer than the 60 s of common load balancers. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

export interface WebServerOptions {
  router: Router
  deps: RouteDeps
  logger: Logger
  /** Everything outside `/api/`: Next.js's request handler, called once the body is within its cap. */
  fallback: NodeHandler
  /** Used for `request.url` when the Host header is missing or odd; handlers only read path and query. */
  origin: string
  /** Counts and times every answer, the route table's path or `next` as its route label. */
  metrics?: Pick<WebMetrics, 'observeRequest'>
  /** `TRUSTED_PROXIES`, compiled: whose X-Forwarded-For names the client (default: nobody's). */
  trustProxy?: ProxyTrust
  /** Next.js runs in dev mode behind this server: its CSP allows what the dev client needs. */
  dev?: boolean
}

const METHOD_LABELS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export interface WebServer {
  server: Server
  /** Stops accepting connections and resolves once every in-flight request has been answered. */
  close(): Promise<void>
}

/** A Host header that can stand in a URL as is: name or address, optional port. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

/**
 * The web process's HTTP server, its one entry: `/api/**` is the route table's (a handler, or a 404 /
 * 405 in the API's error shape), everything else Next.js's. Every request body is capped here first
 * (`http/body-limits.ts`), every answer carries the security headers, and during shutdown every
 * answer says `Connection: close`, so keep-alive clients move on and the server can finish.
 */
export function createWebServer(options: WebServerOptions): WebServer {
  let closing = false
  const trustProxy = options.trustProxy ?? compileProxyTrust([])
  const headers = Object.entries(securityHeaders({ dev: options.dev === true }))

  const serveRoute = async (match: RouteMatch, req: IncomingMessage, res: ServerResponse) => {
    let response: Response
    try {
      const host = req.headers.host
      const origin = host !== undefined && PLAIN_HOST.test(host) ? `http://${host}` : options.origin
      response = await match.route.handle(toWebRequest(req, origin), match.params, options.deps)
    } catch (error) {
      // Handlers answer their own errors (respond()); this is a bug in the bridge or a handler.
      response = errorResponse(error, options.logger)
    }
    if (closing) res.setHeader('connection', 'close')
    await sendWebResponse(req, res, response)
  }

  const dispatch = async (req: IncomingMessage, res: ServerResponse, lookup: RouteLookup | null) => {
    const limit = bodyLimitOf(req.url ?? '/')
    const declared = declaredLength(req)
    if (declared !== null && !(declared <= limit.maxBytes)) return answerPayloadTooLarge(res, limit)
    // A chunked body reaches a handler or Next.js only once it has all arrived within the cap.
    if (hasUnboundedBody(req) && req instanceof CappedRequest) {
      const outcome = await req.holdBody(limit.maxBytes)
      if (outcome === 'too-large') return answerPayloadTooLarge(res, limit)
      if (outcome === 'aborted') return
    }
    if (lookup === null) return options.fallback(req, res)
    if (lookup.kind === 'route') return serveRoute(lookup, req, res)
    return sendWebResponse(req, res, unroutedResponse(req, lookup))
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of headers) res.setHeader(name, value)
    if (closing) res.setHeader('connection', 'close')
    // Before anything reads the request: from here on x-fairlane-client-ip is ours, never the client's.
    stampClientAddress(req, trustProxy)
    const lookup = options.router(req.method ?? 'GET', req.url ?? '/')
    const { metrics } = options
    if (metrics) {
      const started = process.hrtime.bigint()
      res.once('finish', () => {
        const method = req.method && METHOD_LABELS.has(req.method) ? req.method : 'other'
        const route = lookup === null ? 'next' : lookup.kind === 'route' ? lookup.route.path : 'api-unrouted'
        const seconds = Number(process.hrtime.bigint() - started) / 1e9
        metrics.observeRequest({ method, route, status: res.statusCode }, seconds)
      })
    }
    dispatch(req, res, lookup).catch((error: unknown) => {
      options.logger.error({ err: error, url: req.url }, 'request failed')
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({ error: { code: 'internal_error', message: 'Something went wrong on our side.' } }),
        )
      } else {
        res.destroy()
      }
    })
  }

  const server = createServer({ IncomingMessage: CappedRequest }, onRequest)
  // Idle keep-alive connections live longer than a proxy's or client's (load balancers keep 60 s):
  // with Node's 5 s, the server closes a connection just as a client reuses it, and that request
  // dies with ECONNRESET (seen in e2e: an API call after a few seconds of browser steps). Headers
  // must stay allowed longer than an idle connection lives, or the same race moves there.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000
  // `Expect: 100-continue`: a body over the cap is refused before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = declaredLength(req)
    if (declared === null || declared <= bodyLimitOf(req.url ?? '/').maxBytes) res.writeContinue()
    onRequest(req, res)
  })

  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true
        server.close(() => resolve())
        // Connections that finish a request after close() stay open for keep-alive; close them as
        // they go idle.
        server.closeIdleConnections()
        const sweep = setInterval(() => server.closeIdleConnections(), 100)
        sweep.unref()
        server.once('close', () => clearInterval(sweep))
      }),
  }
}

/** An `/api` path the table does not have (404), or has with other methods only (405 with `Allow`). */
function unroutedResponse(req: IncomingMessage, lookup: Exclude<RouteLookup, RouteMatch>): Response {
  const noStore = { 'cache-control': 'no-store' }
  const path = (req.url ?? '/').split('?')[0]
  if (lookup.kind === 'not-found') {
    return Response.json(
      { error: { code: 'not_found', message: `No API route ${path}` } },
      { status: 404, headers: noStore },
    )
  }
  return Response.json(
    {
      error: {
        code: 'method_not_allowed',
        message: `${req.method} is not allowed on ${path}; use ${lookup.allow.join(', ')}`,
      },
    },
    { status: 405, headers: { ...noStore, allow: lookup.allow.join(', ') } },
  )
}

/** A boot failure the operator can act on from its message alone (no stack trace). */
export class WebBootError extends Error {
  override readonly name = 'WebBootError'
}

/** Listens, turning "port taken" into the one line the operator needs. */
export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new WebBootError(
          error.code === 'EADDRINUSE'
            ? `port ${port} is already in use (WEB_PORT)`
            : `cannot listen on ${host}:${port} (HOST, WEB_PORT): ${error.message}`,
        ),
      )
    }
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
}
