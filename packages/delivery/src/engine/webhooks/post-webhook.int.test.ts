import { createServer, Agent as HttpAgent, type RequestListener, type Server } from 'node:http'
import { createServer as createHttpsServer, Agent as HttpsAgent } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from '../../testing/self-signed-cert'
import { type PostWebhookInput, postWebhook } from './post-webhook'

/**
 * Endpoints that misbehave, over real sockets: each is a failed attempt with a reason a tenant can
 * act on, and none holds the attempt past its timeout.
 */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) }
const servers: Server[] = []
const headers = { 'webhook-id': 'msg_test', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
}

const post = (url: string, overrides: Partial<PostWebhookInput> = {}) =>
  postWebhook({
    url,
    body: '{"type":"webhook.test"}',
    headers,
    timeoutMs: 1_000,
    allowPrivate: true,
    agents,
    ...overrides,
  })

let redirectedTo = 0
afterAll(async () => {
  agents.http.destroy()
  agents.https.destroy()
  for (const server of servers) server.closeAllConnections()
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
})

describe('postWebhook against bad endpoints', () => {
  let target: string
  beforeAll(async () => {
    target = await serve((_request, response) => {
      redirectedTo += 1
      response.end('ok')
    })
  })

  it('a 3xx is a failure, and the redirect is not followed', async () => {
    const url = await serve((_request, response) => response.writeHead(301, { location: target }).end())
    const result = await post(url)
    expect(result).toMatchObject({ ok: false, kind: 'redirect', statusCode: 301 })
    expect(result.ok ? '' : result.error).toBe(`HTTP 301 redirect to ${target} not followed`)
    expect(redirectedTo).toBe(0)
  })

  it('a 10 MB body is read to 4 KB, then the socket is dropped', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': 10 * 1024 * 1024 })
      response.end(Buffer.alloc(10 * 1024 * 1024, 'a'))
    })
    const result = await post(url, { timeoutMs: 5_000 })
    expect(result).toMatchObject({ ok: false, kind: 'body-too-large', statusCode: 200 })
    expect(result.ok ? '' : result.error).toMatch(/body over 4096 bytes/)
    expect(result.excerpt).toHaveLength(4096)
    expect(result.durationMs).toBeLessThan(2_000)
  })

  it('a never-ending body times out at the attempt timeout', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200)
      const drip = setInterval(() => response.write('.'), 50)
      response.on('close', () => clearInterval(drip))
    })
    const result = await post(url, { timeoutMs: 800 })
    expect(result).toMatchObject({ ok: false, kind: 'timeout', error: 'no complete answer within 800 ms' })
    expect(result.durationMs).toBeGreaterThanOrEqual(790)
    expect(result.durationMs).toBeLessThan(1_500)
  })

  it('a never-ending fast body stops at 4 KB', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200)
      const flood = setInterval(() => response.write(Buffer.alloc(16 * 1024, 'b')), 5)
      response.on('close', () => clearInterval(flood))
    })
    const result = await post(url, { timeoutMs: 5_000 })
    expect(result).toMatchObject({ ok: false, kind: 'body-too-large' })
    expect(result.durationMs).toBeLessThan(2_000)
  })

  it('a server that never answers times out', async () => {
    const url = await serve(() => {})
    const result = await post(url, { timeoutMs: 500 })
    expect(result).toMatchObject({ ok: false, kind: 'timeout' })
  })

  it('a TLS error (self-signed certificate) says so', async () => {
    const server = createHttpsServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (_request, response) =>
      response.end('ok'),
    )
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const result = await post(`https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)
    expect(result).toMatchObject({ ok: false, kind: 'tls' })
    expect(result.ok ? '' : result.error).toMatch(/^TLS error: .*self.signed/i)
  })

  it('a refused connection is a connection failure', async () => {
    const url = await serve(() => {})
    const closed = servers.pop() as Server
    await new Promise((resolve) => closed.close(resolve))
    const result = await post(url)
    expect(result).toMatchObject({ ok: false, kind: 'connection' })
    expect(result.ok ? '' : result.error).toMatch(/ECONNREFUSED/)
  })

  it('a connection dropped in the middle of the body is a connection failure, at once', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': 1000 })
      response.write('partial')
      setTimeout(() => response.socket?.destroy(), 20)
    })
    const result = await post(url, { timeoutMs: 5_000 })
    expect(result).toMatchObject({ ok: false, kind: 'connection' })
    expect(result.durationMs).toBeLessThan(1_000)
  })

  it('a non-2xx keeps its status and the start of its body', async () => {
    const url = await serve((_request, response) => response.writeHead(500).end('database down'))
    expect(await post(url)).toMatchObject({
      ok: false,
      kind: 'status',
      error: 'HTTP 500',
      excerpt: 'database down',
    })
  })
})

describe('postWebhook without WEBHOOK_ALLOW_PRIVATE', () => {
  it('refuses plain http', async () => {
    const result = await post('http://hooks.example.com/in', { allowPrivate: false })
    expect(result).toMatchObject({ ok: false, kind: 'forbidden-address' })
  })

  it('refuses a literal private address before connecting', async () => {
    const result = await post('https://127.0.0.1:9/hook', { allowPrivate: false })
    expect(result).toMatchObject({ ok: false, kind: 'forbidden-address' })
    expect(result.ok ? '' : result.error).toMatch(/loopback/)
  })

  it('refuses a name that resolves to a private address, at connect time', async () => {
    const result = await post('https://localhost:9/hook', { allowPrivate: false })
    expect(result).toMatchObject({ ok: false, kind: 'forbidden-address' })
    expect(result.ok ? '' : result.error).toMatch(/localhost resolves to .*loopback/)
  })
})
