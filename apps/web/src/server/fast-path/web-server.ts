import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { compileProxyTrust, type ProxyTrust, stampClientAddress } from '../http/client-address'
import { errorResponse } from '../http/errors'
import type { Logger } from '../logger'
import type { WebMetrics } from '../metrics'
import type { RouteDeps } from '../routes'
import { sendWebResponse, toWebRequest } from './node-bridge'
import type { RouteMatch, Router } from './router'

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

export interface WebServerOptions {
  router: Router
  deps: RouteDeps
  logger: Logger
  /** Everything the router does not claim: Next.js's request handler. */
  fallback: NodeHandler
  /** Used for `request.url` when the Host header is missing or odd; handlers only read path and query. */
  origin: string
  /** Counts and times every answer, the route table's path or `next` as its route label. */
  metrics?: Pick<WebMetrics, 'observeRequest'>
  /** `TRUSTED_PROXIES`, compiled: whose X-Forwarded-For names the client (default: nobody's). */
  trustProxy?: ProxyTrust
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
 * The web process's HTTP server: the routes of the table (`routes.ts`) go straight to their handlers,
 * everything else to Next.js. During shutdown every answer says `Connection: close`, so keep-alive
 * clients move on and the server can finish.
 */
export function createWebServer(options: WebServerOptions): WebServer {
  let closing = false
  const trustProxy = options.trustProxy ?? compileProxyTrust([])

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

  const server = createServer((req, res) => {
    if (closing) res.setHeader('connection', 'close')
    // Before anything reads the request: from here on x-fairlane-client-ip is ours, never the client's.
    stampClientAddress(req, trustProxy)
    const match = options.router(req.method ?? 'GET', req.url ?? '/')
    const { metrics } = options
    if (metrics) {
      const started = process.hrtime.bigint()
      res.once('finish', () => {
        const method = req.method && METHOD_LABELS.has(req.method) ? req.method : 'other'
        const route = match ? match.route.path : 'next'
        const seconds = Number(process.hrtime.bigint() - started) / 1e9
        metrics.observeRequest({ method, route, status: res.statusCode }, seconds)
      })
    }
    const work = match ? serveRoute(match, req, res) : options.fallback(req, res)
    work.catch((error: unknown) => {
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
