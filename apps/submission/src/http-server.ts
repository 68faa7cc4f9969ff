import { createServer } from 'node:http'
import type { Server } from 'node:net'
import { metricsRefusal } from '@fairlane/core'
import type { Registry } from 'prom-client'

export interface SubmissionHttpServer {
  port: number
  close(): Promise<void>
}

/**
 * `/health` and `/metrics` of the submission server on SUBMISSION_HTTP_PORT. `/health` answers 200
 * only while SMTP is listening and PostgreSQL answers (without it every message would be refused
 * 451). `/metrics` takes METRICS_TOKEN as the worker's does: open without one in development,
 * refused in production.
 */
export async function startSubmissionHttpServer(options: {
  host: string
  port: number
  registry: Registry
  /** Null: healthy; otherwise what is wrong, in a few words. */
  health: () => Promise<string | null>
  metricsToken?: string | undefined
  requireToken?: boolean
}): Promise<SubmissionHttpServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
      response.end(JSON.stringify(body))
    }
    if (request.method !== 'GET') {
      json(
        405,
        { error: { code: 'method_not_allowed', message: 'only GET is served here' } },
        { allow: 'GET' },
      )
      return
    }
    if (path === '/health') {
      options.health().then(
        (problem) =>
          json(problem === null ? 200 : 503, { ok: problem === null, status: problem ?? 'running' }),
        (error: Error) => json(503, { ok: false, status: `health check failed: ${error.message}` }),
      )
      return
    }
    if (path === '/metrics') {
      const refusal = metricsRefusal({
        authorization: request.headers.authorization,
        token: options.metricsToken,
        requireToken: options.requireToken ?? false,
        process: 'submission',
      })
      if (refusal) {
        json(
          refusal.status,
          { error: refusal.error },
          refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
        )
        return
      }
      options.registry.metrics().then(
        (body) => {
          response.writeHead(200, { 'content-type': options.registry.contentType })
          response.end(body)
        },
        (error: Error) => json(500, { error: { code: 'metrics_failed', message: error.message } }),
      )
      return
    }
    json(404, { error: { code: 'not_found', message: `no route ${path}; try /health or /metrics` } })
  })
  await listen(server, options.host, options.port)
  const address = server.address()
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A taken port is the usual boot failure: named with its setting, as the other processes name theirs. */
export class ListenError extends Error {
  override readonly name = 'ListenError'
}

export function listen(
  server: Server,
  host: string,
  port: number,
  setting = 'SUBMISSION_HTTP_PORT',
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new ListenError(
          error.code === 'EADDRINUSE'
            ? `port ${port} is already in use (${setting})`
            : `cannot listen on ${host}:${port} (${setting}): ${error.message}`,
        ),
      )
    })
    server.listen(port, host, () => resolve())
  })
}
