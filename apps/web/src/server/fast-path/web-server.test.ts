import { Agent, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { respond } from '../http/errors'
import { readJsonBody } from '../http/read-json-body'
import { type ApiRoute, type RouteDeps, route } from '../routes'
import { collectingLogger } from '../test-support/logger'
import { createRouter } from './router'
import { createWebServer, listen, type WebServer } from './web-server'

/** An in-process server on a free port with stub handlers: the bridge and the router, no database. */
const logger = collectingLogger()
let running: WebServer | undefined
let release: (() => void) | undefined
let nextCalls = 0
let nextBodies: string[] = []

const stubRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/messages',
    bodyLimit: 'api',
    handle: (request) =>
      respond(logger, async () => {
        const body = await readJsonBody(request, 1024)
        return Response.json(
          { echo: body, url: request.url, key: request.headers.get('idempotency-key') },
          { status: 202, headers: { location: '/api/v1/messages/m1', 'cache-control': 'no-store' } },
        )
      }),
  },
  route('GET', '/api/v1/messages/:id', (_, params) => {
    const headers = new Headers({ 'retry-after': '3', 'www-authenticate': 'Bearer realm="fairlane"' })
    headers.append('set-cookie', 'a=1')
    headers.append('set-cookie', 'b=2')
    return Response.json({ id: params.id }, { status: 429, headers })
  }),
  {
    method: 'GET',
    path: '/api/health/live',
    bodyLimit: 'api',
    handle: () => {
      throw new Error('boom')
    },
  },
  {
    method: 'GET',
    path: '/api/slow',
    bodyLimit: 'api',
    handle: () =>
      new Promise<Response>((resolve) => {
        release = () => resolve(Response.json({ slow: true }))
      }),
  },
]

async function start(): Promise<string> {
  running = createWebServer({
    router: createRouter(stubRoutes),
    deps: {} as RouteDeps,
    logger,
    fallback: async (req, res) => {
      nextCalls += 1
      let body = ''
      for await (const chunk of req) body += String(chunk)
      if (body !== '') nextBodies.push(body)
      res.writeHead(299, { 'content-type': 'text/plain', 'x-from': 'next' })
      res.end(`next: ${req.method} ${req.url}`)
    },
    origin: 'http://fallback.invalid:1',
  })
  await listen(running.server, '127.0.0.1', 0)
  return `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`
}

afterEach(async () => {
  nextCalls = 0
  nextBodies = []
  release?.()
  release = undefined
  await running?.close()
  running = undefined
})

/** A raw request on a given agent, with the body written in chunks (no Content-Length). */
function rawRequest(
  url: string,
  options: { method: string; agent: Agent; headers?: Record<string, string>; chunks?: Buffer[] },
): Promise<{ status: number; body: string; socket: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method, agent: options.agent, headers: options.headers })
    req.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket }))
    })
    req.on('error', reject)
    for (const chunk of options.chunks ?? []) req.write(chunk)
    req.end()
  })
}

describe('the web server', () => {
  it('keeps idle connections longer than a load balancer does, so a reused connection is never cut under a request', async () => {
    await start()
    const server = running?.server
    expect(server?.keepAliveTimeout).toBeGreaterThan(60_000)
    // Node requires headers to be allowed at least as long, or the race moves to the headers timer.
    expect(server?.headersTimeout).toBeGreaterThan(server?.keepAliveTimeout ?? Number.POSITIVE_INFINITY)
  })

  it('answers a table route from its handler, with the request’s URL, headers and body', async () => {
    const base = await start()
    const response = await fetch(`${base}/api/v1/messages?trace=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: JSON.stringify({ to: 'a@example.test' }),
    })
    expect(response.status).toBe(202)
    expect(response.headers.get('location')).toBe('/api/v1/messages/m1')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({
      echo: { to: 'a@example.test' },
      url: `${base}/api/v1/messages?trace=1`,
      key: 'k-1',
    })
  })

  it('keeps the status and every header, each Set-Cookie on its own', async () => {
    const base = await start()
    const response = await fetch(`${base}/api/v1/messages/m%201`)
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('3')
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="fairlane"')
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(await response.json()).toEqual({ id: 'm 1' })
  })

  it('hands everything outside /api to Next.js', async () => {
    const base = await start()
    for (const [method, path] of [
      ['GET', '/'],
      ['POST', '/u/some-token'],
      ['GET', '/apis'],
    ] as const) {
      const response = await fetch(`${base}${path}`, { method })
      expect(response.status, path).toBe(299)
      expect(response.headers.get('x-from')).toBe('next')
      expect(await response.text()).toBe(`next: ${method} ${path}`)
    }
    expect(nextCalls).toBe(3)
  })

  it('answers an unknown /api path with 404 and a known one with another method with 405 and Allow', async () => {
    const base = await start()
    for (const path of ['/api/v1/nothing', '/api/v1/messages/', '/api/auth/sign-in/email']) {
      const response = await fetch(`${base}${path}`, { method: 'POST' })
      expect(response.status, path).toBe(404)
      expect((await response.json()).error.code).toBe('not_found')
    }
    const wrong = await fetch(`${base}/api/v1/messages`, { method: 'PUT' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('POST')
    expect((await wrong.json()).error).toMatchObject({ code: 'method_not_allowed' })
    expect(nextCalls).toBe(0)
  })

  it('puts the security headers on every answer: routes, Next.js, 404, 413', async () => {
    const base = await start()
    const answers = [
      await fetch(`${base}/api/v1/messages/m1`),
      await fetch(`${base}/dashboard`),
      await fetch(`${base}/api/nothing`),
      await fetch(`${base}/u/x`, { method: 'POST', body: 'x'.repeat(5000) }),
    ]
    for (const response of answers) {
      const csp = response.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      expect(response.headers.get('x-frame-options')).toBe('DENY')
      expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
    }
    expect(answers.map((response) => response.status)).toEqual([429, 299, 404, 413])
  })

  it('caps bodies bound for Next.js: a Content-Length over the cap never reaches it', async () => {
    const base = await start()
    const response = await fetch(`${base}/u/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'x'.repeat(4 * 1024 + 1),
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({
      error: { code: 'payload_too_large', details: { limitBytes: 4096 } },
    })
    expect(nextCalls).toBe(0)
  })

  it('refuses an oversize body announced with Expect: 100-continue before the client sends it', async () => {
    const base = await start()
    const outcome = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false
      const req = httpRequest(`${base}/api/v1/campaigns`, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(2 * 1024 * 1024),
          expect: '100-continue',
        },
      })
      req.on('continue', () => {
        continued = true
      })
      req.on('response', (res) => {
        res.resume()
        res.on('end', () => {
          req.destroy()
          resolve({ status: res.statusCode ?? 0, continued })
        })
      })
      req.on('error', reject)
      req.flushHeaders()
    })
    expect(outcome).toEqual({ status: 413, continued: false })
  })

  it('counts a chunked body bound for Next.js and cuts it at the cap; one within it arrives whole', async () => {
    const base = await start()
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const big = await rawRequest(`${base}/u/token`, {
        method: 'POST',
        agent,
        chunks: Array.from({ length: 8 }, () => Buffer.alloc(1024, 'x')),
      })
      expect(big.status).toBe(413)
      expect(nextCalls).toBe(0)
      const small = await rawRequest(`${base}/u/token`, {
        method: 'POST',
        agent,
        chunks: [Buffer.from('List-Unsubscribe='), Buffer.from('One-Click')],
      })
      expect(small.status).toBe(299)
      expect(nextBodies).toEqual(['List-Unsubscribe=One-Click'])
    } finally {
      agent.destroy()
    }
  })

  it('cuts an oversize chunked body off at the limit with 413, and the connection stays usable', async () => {
    const base = await start()
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const big = await rawRequest(`${base}/api/v1/messages`, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
        chunks: Array.from({ length: 50 }, () => Buffer.alloc(2048, 'x')),
      })
      expect(big.status).toBe(413)
      expect(JSON.parse(big.body).error.code).toBe('payload_too_large')
      const next = await rawRequest(`${base}/api/v1/messages`, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
        chunks: [Buffer.from('{"ok":'), Buffer.from('true}')],
      })
      expect(next.status).toBe(202)
      expect(JSON.parse(next.body).echo).toEqual({ ok: true })
      expect(next.socket).toBe(big.socket)
    } finally {
      agent.destroy()
    }
  })

  it('answers 413 from Content-Length without reading the body', async () => {
    const base = await start()
    const response = await fetch(`${base}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(5000) }),
    })
    expect(response.status).toBe(413)
  })

  it('turns a handler that throws into a logged 500 with a reference', async () => {
    const base = await start()
    const response = await fetch(`${base}/api/health/live`)
    expect(response.status).toBe(500)
    expect((await response.json()).error.code).toBe('internal_error')
    expect(logger.lines.some((line) => line.level === 'error')).toBe(true)
  })

  it('on close, stops accepting but answers the request in flight', async () => {
    const base = await start()
    const inFlight = fetch(`${base}/api/slow`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const server = running as WebServer
    running = undefined
    let closed = false
    const closing = server.close().then(() => {
      closed = true
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(closed).toBe(false)
    await expect(fetch(`${base}/api/health/live`)).rejects.toThrow()
    release?.()
    const response = await inFlight
    expect(response.status).toBe(200)
    expect(response.headers.get('connection')).not.toBe('keep-alive')
    await closing
    expect(closed).toBe(true)
  })
})
