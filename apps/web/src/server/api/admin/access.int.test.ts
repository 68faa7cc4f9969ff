import { randomUUID } from 'node:crypto'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_ROUTES, type RouteDeps } from '../../routes'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  TEST_ADMIN_TOKEN,
  TEST_APP_ORIGIN,
  type WebHarness,
} from '../../test-support/harness'

const env = setupTestEnvironment('web-admin-access')

let harness: WebHarness
let admin: { email: string; cookie: string }
let tenantUser: { email: string; cookie: string }

beforeAll(async () => {
  harness = createWebHarness(env)
  admin = await harness.signIn({ platformAdmin: true })
  tenantUser = await harness.signIn({ platformAdmin: false })
})

afterAll(async () => {
  await harness?.close()
})

const deps = (): RouteDeps =>
  ({
    admin: harness.adminDeps(),
    api: harness.apiDeps(),
    database: harness.database,
    redis: harness.redis,
  }) as unknown as RouteDeps

const getQueueStatsWith = (token: string, admin: ReturnType<WebHarness['adminDeps']>) =>
  API_ROUTES.queueStats.handle(jsonRequest('/api/admin/queues', { token }), {}, {
    ...deps(),
    admin,
  } as RouteDeps)

const adminRoutes = Object.entries(API_ROUTES).filter(([, route]) => route.path.startsWith('/api/admin/'))

/** Every admin route, called as the console would: a path with made-up ids and a plausible body. */
function call(route: (typeof adminRoutes)[number][1], headers: Record<string, string>) {
  const params = { id: randomUUID() }
  const path = route.path.replace(':id', params.id)
  const body =
    route.method === 'GET' || route.method === 'DELETE' || route.path.endsWith(':id/replay')
      ? undefined
      : route.path.endsWith('/dlq/replay') || route.path.endsWith('/dlq/discard')
        ? { ids: ['x'], reason: 'test' }
        : route.path.endsWith(':id/resume')
          ? { reason: 'test' }
          : route.method === 'PATCH'
            ? { plan: { weight: 2 } }
            : { name: 'X', plan: { weight: 2 } }
  const request = jsonRequest(path, { method: route.method, body, headers })
  return route.handle(request, params as never, deps())
}

describe('/api/admin access', () => {
  it('covers every admin route of the table', () => {
    expect(adminRoutes.map(([key]) => key)).toEqual(
      expect.arrayContaining(['listTenants', 'overview', 'fairness', 'bulkReplayDeadLetters', 'webMetrics']),
    )
  })

  it.each(adminRoutes)('%s: 401 JSON without a session or token', async (_key, route) => {
    const response = await call(route, {})
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toMatch(/application\/json/)
    expect((await readJson<{ error: { code: string } }>(response)).error.code).toBe('unauthorized')
  })

  it.each(adminRoutes)('%s: 403 JSON for a tenant user’s session', async (_key, route) => {
    const response = await call(route, { cookie: tenantUser.cookie, origin: TEST_APP_ORIGIN })
    expect(response.status).toBe(403)
    const body = await readJson<{ error: { code: string; message: string } }>(response)
    expect(body.error.code).toBe('forbidden')
    expect(body.error.message).toMatch(/platform admins/)
  })

  it.each(adminRoutes)(
    '%s: let in for a platform admin’s session and for the bearer token',
    async (_key, route) => {
      const ways: Record<string, string>[] = [
        { cookie: admin.cookie, origin: TEST_APP_ORIGIN },
        { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      ]
      for (const headers of ways) {
        const response = await call(route, headers)
        expect([200, 201, 404], `${route.method} ${route.path}`).toContain(response.status)
      }
    },
  )

  it('401 for an expired or forged cookie, 401 for a wrong bearer even with an admin cookie', async () => {
    const forged = await call(API_ROUTES.overview, { cookie: 'better-auth.session_token=forged.value' })
    expect(forged.status).toBe(401)
    const wrongToken = await call(API_ROUTES.overview, { cookie: admin.cookie, authorization: 'Bearer nope' })
    expect(wrongToken.status).toBe(401)
  })

  it('refuses a cookie-authenticated change from another origin (403), allows reads from it', async () => {
    const change = await call(API_ROUTES.updateTenant, {
      cookie: admin.cookie,
      origin: 'https://evil.example',
    })
    expect(change.status).toBe(403)
    expect((await readJson<{ error: { message: string } }>(change)).error.message).toMatch(/must come from/)
    const read = await call(API_ROUTES.overview, { cookie: admin.cookie, origin: 'https://evil.example' })
    expect(read.status).toBe(200)
  })

  it('records the admin’s email as the actor of a session-authenticated change', async () => {
    const created = await API_ROUTES.createTenant.handle(
      jsonRequest('/api/admin/tenants', { body: { name: 'By session' }, headers: { cookie: admin.cookie } }),
      {},
      deps(),
    )
    expect(created.status).toBe(201)
    const { id } = await readJson<{ id: string }>(created)
    const [audit] = await harness.database
      .sql`select actor, action from admin_audit_log where target_id = ${id}`
    expect(audit).toEqual({ actor: admin.email, action: 'tenant.create' })
  })

  it('serves the web process’s Prometheus text', async () => {
    const response = await call(API_ROUTES.webMetrics, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/text\/plain/)
    const text = await response.text()
    expect(text).toContain('process_cpu_user_seconds_total')
    expect(text).toContain('# TYPE fairlane_web_http_requests_total counter')
  })

  it('serves metrics to the METRICS_TOKEN bearer, and to nothing else it does not know', async () => {
    const token = 'scraper-token-0123456789'
    const metricsDeps = { ...harness.adminDeps(), metricsToken: token }
    const scrape = (bearer: string) =>
      API_ROUTES.webMetrics.handle(jsonRequest('/api/admin/metrics', { token: bearer }), {}, {
        ...deps(),
        admin: metricsDeps,
      } as RouteDeps)
    expect((await scrape(token)).status).toBe(200)
    expect((await scrape('scraper-token-wrong-000')).status).toBe(401)
    // The metrics token opens nothing else.
    const other = await getQueueStatsWith(token, metricsDeps)
    expect(other.status).toBe(401)
  })
})
