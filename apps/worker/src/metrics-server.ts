import { createServer, type Server } from 'node:http'
import { metricsRefusal } from '@fairlane/core'
import type { Registry } from 'prom-client'
import { BootError } from './boot-error'

export interface MetricsServer {
  port: number
  close(): Promise<void>
}

/**
 * `/metrics` for Prometheus and `/health` for the orchestrator. `/health` answers 503 until delivery
 * has started and again once shutdown has begun, so a load balancer or compose counts on this
 * process only while it delivers.
 *
 * `/metrics` names tenants (their backlogs and deferrals), so with a `metricsToken` (METRICS_TOKEN, the
 * same bearer the web app's metrics take) it answers only `Authorization: Bearer <token>`. Without one
 * it is open unless `requireToken` (production), where it refuses every scrape and says why: an
 * operator who forgot the token finds out at the first scrape, not after someone else read the list.
 */
export async function startMetricsServer(options: {
  host: string
  port: number
  registry: Registry
  isShuttingDown: () => boolean
  isReady: () => boolean
  /** METRICS_TOKEN; undefined: see `requireToken`. */
  metricsToken?: string | undefined
  /** With no `metricsToken`: refuse `/metrics` (production) instead of serving it to anyone. */
  requireToken?: boolean
}): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (request.method !== 'GET') {
      response.writeHead(405, { 'content-type': 'application/json', allow: 'GET' })
      response.end(
        JSON.stringify({ error: { code: 'method_not_allowed', message: 'only GET is served here' } }),
      )
      return
    }
    if (path === '/metrics') {
      const refusal = metricsRefusal({
        authorization: request.headers.authorization,
        token: options.metricsToken,
        requireToken: options.requireToken ?? false,
        process: 'worker',
      })
      if (refusal) {
        response.writeHead(refusal.status, {
          'content-type': 'application/json',
          ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
        })
        response.end(JSON.stringify({ error: refusal.error }))
        return
      }
      options.registry.metrics().then(
        (body) => {
          response.writeHead(200, { 'content-type': options.registry.contentType })
          response.end(body)
        },
        (error: Error) => {
          response.writeHead(500, { 'content-type': 'text/plain' })
          response.end(`metrics collection failed: ${error.message}`)
        },
      )
      return
    }
    if (path === '/health') {
      const status = options.isShuttingDown() ? 'shutting-down' : options.isReady() ? 'running' : 'starting'
      const ok = status === 'running'
      response.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ ok, status }))
      return
    }
    response.writeHead(404, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify({ error: { code: 'not_found', message: `no route ${path}; try /metrics or /health` } }),
    )
  })
  await listen(server, options.host, options.port)
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new BootError(`port ${port} is already in use (WORKER_METRICS_PORT)`)
          : new BootError(`cannot listen on ${host}:${port} (WORKER_METRICS_PORT): ${error.message}`),
      )
    })
    server.listen(port, host, () => resolve())
  })
}
