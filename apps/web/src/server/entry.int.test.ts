import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import {
  ensureWebBuild,
  eventually,
  freePort,
  type RunningProcess,
  setupTestEnvironment,
  spawnEntry,
} from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, seedTenant, TEST_SESSION_SECRET, type WebHarness } from './test-support/harness'

/**
 * The web process as it runs in production: `main.ts` in a process of its own, serving the real
 * `next build` output (built here only when missing or stale; `pnpm test` builds it first). What a
 * client can send it is measured from outside, in the process's resident memory.
 */
const env = setupTestEnvironment('web-entry')
const FIFTY_MB = 50 * 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 'x')

let harness: WebHarness
let web: RunningProcess
let base: string
let apiKey: string

beforeAll(async () => {
  await ensureWebBuild()
  harness = createWebHarness(env)
  apiKey = (await seedTenant(harness, 'Entry')).apiKey
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  web = spawnEntry('apps/web/src/server/main.ts', {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    WEB_PORT: String(port),
    APP_URL: base,
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    QUEUE_PREFIX: env.queuePrefix,
    // The harness's secret, so a session it signs in is one the entry accepts.
    SESSION_SECRET: TEST_SESSION_SECRET,
    UNSUBSCRIBE_SECRET: '1:entry-test-unsubscribe-secret-0123456789abc',
    // Production refuses the published development key.
    DKIM_ENCRYPTION_KEY: `1:${Buffer.alloc(32, 5).toString('base64')}`,
    ADMIN_TOKEN: 'entry-test-admin-token-0123456789abcdef',
    METRICS_TOKEN: 'entry-test-metrics-token-0123456789abcdef',
    SHUTDOWN_FORCE_EXIT_MS: '10000',
  })
  await eventually(async () => (await fetch(`${base}/api/health/ready`)).ok, {
    what: `the web entry to answer (output so far: ${web.output().slice(-2000)})`,
    timeoutMs: 90_000,
    intervalMs: 200,
  })
}, 20 * 60_000)

afterAll(async () => {
  if (web && web.child.exitCode === null) {
    web.child.kill('SIGTERM')
    await web.exited
  }
  await harness?.close()
})

/** The web process's resident set, in bytes, as the kernel counts it. */
function rssBytes(): number {
  const status = readFileSync(`/proc/${web.child.pid}/status`, 'utf8')
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]
  if (kb === undefined) throw new Error(`no VmRSS for the web process: ${status.slice(0, 200)}`)
  return Number(kb) * 1024
}

interface Sent {
  status: number
  body: string
  /** How much of the body the client got to write before it had its answer. */
  sentBytes: number
}

/**
 * POSTs a body of `size` bytes, with a Content-Length or chunked, writing as fast as the server
 * reads, and stops writing at the first answer (a server that refuses early stops reading).
 */
function postHuge(
  path: string,
  options: { chunked: boolean; headers?: Record<string, string>; size?: number },
): Promise<Sent> {
  const size = options.size ?? FIFTY_MB
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers }
    if (!options.chunked) headers['content-length'] = String(size)
    const req = httpRequest(`${base}${path}`, { method: 'POST', headers, agent: false })
    let sentBytes = 0
    let answered = false
    req.on('response', (res) => {
      answered = true
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => {
        req.destroy()
        resolve({ status: res.statusCode ?? 0, body, sentBytes })
      })
      res.on('error', reject)
    })
    // The server closing its end while we still write is expected once it answered; before, a failure.
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    const write = () => {
      while (!answered && sentBytes < size) {
        const piece = size - sentBytes >= CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, size - sentBytes)
        sentBytes += piece.byteLength
        if (!req.write(piece)) {
          req.once('drain', write)
          return
        }
      }
      if (!answered) req.end()
    }
    write()
  })
}

const PUBLIC_ROUTES: { name: string; path: string; headers: () => Record<string, string> }[] = [
  {
    name: '/u/x',
    path: '/u/x',
    headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }),
  },
  {
    name: '/api/auth/sign-in/email',
    path: '/api/auth/sign-in/email',
    headers: () => ({ 'content-type': 'application/json', origin: base }),
  },
  {
    name: '/api/v1/messages',
    path: '/api/v1/messages',
    headers: () => ({ 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }),
  },
  {
    // A server action is a POST to a page naming the action; the entry caps it before Next.js.
    name: 'server action (POST /sign-in, Next-Action)',
    path: '/sign-in',
    headers: () => ({
      'content-type': 'text/plain;charset=UTF-8',
      'next-action': '7f00000000000000000000000000000000000000',
      accept: 'text/x-component',
      origin: base,
    }),
  },
]

/** What one route may add to the web process's RSS over two 50 MB bodies (the bound). */
const ROUTE_BOUND = 20 * 1024 * 1024

describe('the web entry (real build)', () => {
  it('answers 50 MB posted to each public route with 413, and its memory stays put', async () => {
    // Warm up: every route's code loaded and one refusal each way, so what follows measures bodies.
    for (const route of PUBLIC_ROUTES) {
      for (const chunked of [false, true]) {
        const answer = await postHuge(route.path, {
          chunked,
          headers: route.headers(),
          // Over every route's cap: POST /api/v1/messages takes a 10 MB message as base64 (14.3 MB).
          size: 16 * 1024 * 1024,
        })
        expect(answer.status, `${route.name} warm-up`).toBe(413)
      }
    }
    const growth: Record<string, number> = {}
    const before = rssBytes()
    for (const route of PUBLIC_ROUTES) {
      // Up to three rounds, the least growth counted: memory a route keeps grows again every round,
      // while a one-off step of the allocator on a loaded machine (77 MB once in CI, 0.1 MB here
      // otherwise) does not repeat.
      for (let round = 0; round < 3 && !((growth[route.name] ?? Infinity) < ROUTE_BOUND); round++) {
        const start = rssBytes()
        for (const chunked of [false, true]) {
          const answer = await postHuge(route.path, { chunked, headers: route.headers() })
          const how = chunked ? 'chunked' : 'Content-Length'
          expect(answer.status, `${route.name} (${how})`).toBe(413)
          expect(JSON.parse(answer.body), `${route.name} (${how})`).toMatchObject({
            error: { code: 'payload_too_large' },
          })
          // Refused long before the end: the server stopped reading.
          expect(answer.sentBytes, `${route.name} (${how})`).toBeLessThan(FIFTY_MB)
        }
        growth[route.name] = Math.min(growth[route.name] ?? Infinity, rssBytes() - start)
      }
    }
    const total = rssBytes() - before
    console.log(
      `web entry RSS growth over 2 × 50 MB per route (MB): ${JSON.stringify(
        Object.fromEntries(
          Object.entries(growth).map(([name, bytes]) => [name, +(bytes / 2 ** 20).toFixed(1)]),
        ),
      )}, whole run: ${(total / 2 ** 20).toFixed(1)} MB (RSS now ${(rssBytes() / 2 ** 20).toFixed(0)} MB)`,
    )
    for (const [name, bytes] of Object.entries(growth)) expect(bytes, name).toBeLessThan(ROUTE_BOUND)
    // Eight 50 MB bodies together: less than one of them kept. (The per-route bound above is the
    // issue's; the sum also carries the allocator's and GC's noise of a loaded machine, seen at 29 MB.)
    const kept = Object.values(growth).reduce((sum, bytes) => sum + bytes, 0)
    expect(kept).toBeLessThan(FIFTY_MB)
    // Still serving.
    expect((await fetch(`${base}/api/health/live`)).status).toBe(200)
  }, 180_000)

  it('answers unknown /api paths with 404 and wrong methods with 405 naming the allowed ones', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/messages/', '/api/admin/nope']) {
      const response = await fetch(`${base}${path}`)
      expect(response.status, path).toBe(404)
      expect(response.headers.get('content-type')).toContain('application/json')
      expect((await response.json()).error.code).toBe('not_found')
    }
    const wrong = await fetch(`${base}/api/v1/messages`, { method: 'PUT' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET, POST')
    expect((await wrong.json()).error.code).toBe('method_not_allowed')
    const cancel = await fetch(`${base}/api/v1/campaigns/c1/cancel`, { method: 'DELETE' })
    expect(cancel.status).toBe(405)
    expect(cancel.headers.get('allow')).toBe('POST')
  })

  it('serves the API routes Next.js used to serve, from the route table', async () => {
    const contacts = await fetch(`${base}/api/v1/contacts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ contacts: [{ email: 'ann@example.com' }] }),
    })
    expect(contacts.status).toBe(200)
    expect(await contacts.json()).toEqual({ created: 1, updated: 0 })
    const campaign = await fetch(`${base}/api/v1/campaigns/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    expect(campaign.status).toBe(404)
    expect((await campaign.json()).error.code).toBe('not_found')
    const session = await fetch(`${base}/api/auth/get-session`)
    expect(session.status).toBe(200)
    expect(await session.json()).toBeNull()
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'not the password at all' }),
    })
    expect(signIn.status).toBe(401)
    expect((await signIn.json()).code).toBe('INVALID_EMAIL_OR_PASSWORD')
  })

  it('lets Next.js pages use the container the entry built: one pool, one better-auth', async () => {
    const admin = await harness.signIn({ platformAdmin: true })
    const page = await fetch(`${base}/admin`, { headers: { cookie: admin.cookie }, redirect: 'manual' })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(admin.email)
    expect(web.output()).not.toContain('web container built by Next.js')
    const pools = await harness.database.sql<{ name: string }[]>`
      select distinct application_name as name from pg_stat_activity
      where datname = current_database() and application_name like 'web%' and application_name <> 'web-test'`
    expect(pools.map((row) => row.name)).toEqual(['web'])
  })

  it('sends the security headers with pages and API answers alike', async () => {
    for (const path of ['/sign-in', '/api/health/live', '/api/nothing']) {
      const response = await fetch(`${base}${path}`)
      const csp = response.headers.get('content-security-policy') ?? ''
      expect(csp, path).toContain("default-src 'self'")
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(response.headers.get('x-frame-options'), path).toBe('DENY')
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(response.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin')
    }
  })
})
