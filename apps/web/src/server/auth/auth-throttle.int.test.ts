import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createProducerConnection } from '@fairlane/queue'
import { eventually, setupTestEnvironment, startThrowawayRedis } from '@fairlane/testing'
import { APIError } from 'better-auth'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sendWebResponse } from '../fast-path/node-bridge'
import { createRouter } from '../fast-path/router'
import { createWebServer, listen, type WebServer } from '../fast-path/web-server'
import { CLIENT_ADDRESS_HEADER, compileProxyTrust, type ProxyTrust } from '../http/client-address'
import { API_ROUTES, type RouteDeps } from '../routes'
import { createWebHarness, TEST_APP_ORIGIN, type WebHarness } from '../test-support/harness'
import {
  type AuthThrottle,
  type AuthThrottlePolicy,
  createAuthThrottle,
  DEFAULT_AUTH_THROTTLE,
} from './auth-throttle'
import type { Auth } from './better-auth'

/**
 * Sign-in throttling through both ways in, each behind the web entry's real HTTP server (which
 * stamps the client address from the socket): better-auth's HTTP handler, as `/api/auth/*` is served,
 * and `auth.api.signInEmail` with the request's headers, as the sign-in server action calls it.
 */
const env = setupTestEnvironment('auth-throttle')
const PASSWORD = 'correct horse battery staple'
let harness: WebHarness
const servers: WebServer[] = []
let prefixes = 0

beforeAll(() => {
  harness = createWebHarness(env)
})

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

afterAll(async () => {
  await harness?.close()
})

type Entry = 'http-route' | 'server-action'

/** A fresh throttle (own Redis keys) and a web entry in front of it; `/action` stands for the server action. */
async function startEntry(options: { trust?: ProxyTrust; policy?: AuthThrottlePolicy } = {}) {
  prefixes += 1
  const { auth, throttle } = harness.makeAuth({
    keyPrefix: `${env.queuePrefix}:rl-${prefixes}`,
    policy: options.policy,
  })
  const fallback = async (req: IncomingMessage, res: ServerResponse) => {
    await sendWebResponse(req, res, await serverAction(auth, req))
  }
  const server = createWebServer({
    // `/api/auth/*` as the web entry serves it: the route table's entries and their adapter.
    router: createRouter([API_ROUTES.authGet, API_ROUTES.authPost]),
    // Only the auth routes run here, and they take nothing else.
    deps: { auth, logger: harness.logger } as unknown as RouteDeps,
    logger: harness.logger,
    fallback,
    origin: TEST_APP_ORIGIN,
    trustProxy: options.trust,
  })
  servers.push(server)
  await listen(server.server, '127.0.0.1', 0)
  const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`
  return { url, auth, throttle }
}

/** What the sign-in action does: auth.api with the headers Next.js hands it (the request's). */
async function serverAction(auth: Auth, req: IncomingMessage): Promise<Response> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString()) as { email: string; password: string }
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers.set(name, value)
  try {
    await auth.api.signInEmail({ body, headers })
    return Response.json({ ok: true })
  } catch (error) {
    if (!(error instanceof APIError)) throw error
    return Response.json(error.body, { status: error.statusCode, headers: error.headers })
  }
}

async function attempt(
  url: string,
  entry: Entry,
  body: { email: string; password: string },
  headers: Record<string, string> = {},
) {
  const path = entry === 'http-route' ? '/api/auth/sign-in/email' : '/action/sign-in'
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: TEST_APP_ORIGIN, ...headers },
    body: JSON.stringify(body),
  })
  const json = (await response.json()) as { code?: string; limit?: string }
  return { status: response.status, retryAfter: response.headers.get('retry-after'), json }
}

let users = 0
async function newUser(): Promise<string> {
  users += 1
  const email = `owner-${users}-${Date.now()}@example.test`
  await harness.auth.api.signUpEmail({
    body: { name: 'Owner', email, password: PASSWORD },
    headers: new Headers({ [CLIENT_ADDRESS_HEADER]: `198.19.0.${users}` }),
  })
  return email
}

describe.each<Entry>(['http-route', 'server-action'])('sign-in through the %s', (entry) => {
  it('counts 100 attempts with a rotating X-Forwarded-For (and a forged client header) as one client', async () => {
    const { url } = await startEntry()
    const email = await newUser()
    const statuses: number[] = []
    let last: Awaited<ReturnType<typeof attempt>> | undefined
    for (let index = 0; index < 100; index++) {
      last = await attempt(
        url,
        entry,
        { email, password: `guess-${index}-wrong!` },
        { 'x-forwarded-for': `203.0.${index}.${index}`, [CLIENT_ADDRESS_HEADER]: `198.51.100.${index}` },
      )
      statuses.push(last.status)
    }
    const free = DEFAULT_AUTH_THROTTLE.signInLockout.freeAttempts
    expect(statuses.slice(0, free)).toEqual(Array(free).fill(401))
    expect(statuses.slice(free)).toEqual(Array(100 - free).fill(429))
    expect(Number(last?.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(last?.json).toMatchObject({
      code: 'TOO_MANY_ATTEMPTS',
      message: expect.stringMatching(/Try again in/),
    })
    // The owner's right password from the same client waits too: the lock is the (address, client) pair's.
    expect((await attempt(url, entry, { email, password: PASSWORD })).status).toBe(429)
  })

  it('behind a trusted proxy, counts by the forwarded address: a stranger does not lock the owner out', async () => {
    const { url } = await startEntry({ trust: compileProxyTrust(['loopback']) })
    const email = await newUser()
    const stranger = { 'x-forwarded-for': '203.0.113.66' }
    const strangers: number[] = []
    for (let index = 0; index < 20; index++) {
      strangers.push((await attempt(url, entry, { email, password: `nope-${index}-nope` }, stranger)).status)
    }
    expect(strangers.filter((status) => status === 429)).toHaveLength(15)
    // The owner, at another address, signs in at once, and is not counted with the stranger.
    const owner = await attempt(
      url,
      entry,
      { email, password: PASSWORD },
      { 'x-forwarded-for': '198.51.100.7' },
    )
    expect(owner.status).toBe(200)
    expect((await attempt(url, entry, { email, password: PASSWORD }, stranger)).status).toBe(429)
  })
})

describe('the per-client cap', () => {
  it('stops one client walking through many addresses; a success is given back', async () => {
    const policy = { ...DEFAULT_AUTH_THROTTLE, signInsPerClient: { points: 12, windowSec: 900 } }
    const { url } = await startEntry({ policy })
    const email = await newUser()
    expect((await attempt(url, 'http-route', { email, password: PASSWORD })).status).toBe(200)
    const statuses: number[] = []
    let last: Awaited<ReturnType<typeof attempt>> | undefined
    for (let index = 0; index < 20; index++) {
      last = await attempt(url, 'server-action', {
        email: `nobody-${index}@example.test`,
        password: 'wrong-wrong',
      })
      statuses.push(last.status)
    }
    expect(statuses.slice(0, 12)).toEqual(Array(12).fill(401))
    expect(statuses.slice(12)).toEqual(Array(8).fill(429))
    expect(last?.json).toMatchObject({ limit: 'client' })
    expect(Number(last?.retryAfter)).toBeGreaterThan(800)
  })
})

describe('the lockout of one (address, client) pair', () => {
  it('grows with every attempt after the free ones, and a success forgets it', async () => {
    const policy = {
      ...DEFAULT_AUTH_THROTTLE,
      signInLockout: { ...DEFAULT_AUTH_THROTTLE.signInLockout, freeAttempts: 2, firstLockMs: 1_000 },
    }
    const { throttle } = await startEntry({ policy })
    const pair = { email: 'Grow@Example.test', client: '203.0.113.9' }
    expect(await throttle.beginSignIn(pair)).toEqual({ allowed: true })
    expect(await throttle.beginSignIn(pair)).toEqual({ allowed: true })
    expect(await throttle.beginSignIn(pair)).toEqual({ allowed: false, retryAfterSec: 1, limit: 'address' })
    await waitUntilAllowed(throttle, pair)
    // The third attempt ran; the fourth waits twice as long.
    expect(await throttle.beginSignIn(pair)).toEqual({ allowed: false, retryAfterSec: 2, limit: 'address' })
    // Case and spacing do not make another pair; another client is another pair.
    expect((await throttle.beginSignIn({ ...pair, email: ' grow@example.TEST ' })).allowed).toBe(false)
    expect((await throttle.beginSignIn({ ...pair, client: '203.0.113.10' })).allowed).toBe(true)
    await throttle.signInSucceeded(pair)
    expect(await throttle.beginSignIn(pair)).toEqual({ allowed: true })
  })
})

describe('with Redis away', () => {
  it('keeps throttling, counting in this process', async () => {
    const redis = await startThrowawayRedis()
    const connection = createProducerConnection(
      { url: redis.url, cluster: false },
      'auth-throttle-down',
      harness.logger,
    )
    try {
      await eventually(() => connection.status === 'ready', { what: 'throttle connection ready' })
      const throttle = createAuthThrottle({ redis: connection, keyPrefix: 'down', logger: harness.logger })
      await redis.stop()
      await eventually(() => connection.status !== 'ready', { what: 'throttle connection to notice' })
      const pair = { email: 'away@example.test', client: '203.0.113.77' }
      const decisions = []
      for (let index = 0; index < 7; index++) decisions.push(await throttle.beginSignIn(pair))
      expect(decisions.map((decision) => decision.allowed)).toEqual([
        true,
        true,
        true,
        true,
        true,
        false,
        false,
      ])
      expect(decisions.at(-1)).toMatchObject({ limit: 'address', retryAfterSec: 60 })
      expect((await throttle.beginSignUp(pair.client)).allowed).toBe(true)
    } finally {
      connection.disconnect()
      await redis.stop()
    }
  })
})

async function waitUntilAllowed(throttle: AuthThrottle, pair: { email: string; client: string }) {
  await eventually(async () => (await throttle.beginSignIn(pair)).allowed, {
    timeoutMs: 5_000,
    intervalMs: 100,
    what: 'the first lock to end',
  })
}
