import { Counter, Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { type MetricsServer, startMetricsServer } from './metrics-server'

/** The worker's /metrics names tenants: with METRICS_TOKEN set only its bearer reads them. */
const TOKEN = 'metrics-token-0123456789abcdef'
let server: MetricsServer | undefined

async function start(options: { metricsToken?: string; requireToken?: boolean }): Promise<string> {
  const registry = new Registry()
  new Counter({
    name: 'fairlane_tenant_sent_total',
    help: 'test series naming a tenant',
    labelNames: ['tenant'],
    registers: [registry],
  }).inc({ tenant: '5b7f1c8e-0000-4000-8000-000000000001' })
  server = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    registry,
    isShuttingDown: () => false,
    isReady: () => true,
    ...options,
  })
  return `http://127.0.0.1:${server.port}`
}

afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('worker /metrics access', () => {
  it('with METRICS_TOKEN: 401 without the bearer or with another one, 200 with it', async () => {
    const base = await start({ metricsToken: TOKEN })
    const anonymous = await fetch(`${base}/metrics`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    const body = await anonymous.text()
    expect(body).toContain('METRICS_TOKEN')
    expect(body).not.toContain('5b7f1c8e')
    const wrong = await fetch(`${base}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    })
    expect(wrong.status).toBe(401)
    const scraper = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(scraper.status).toBe(200)
    expect(await scraper.text()).toContain('tenant="5b7f1c8e-0000-4000-8000-000000000001"')
  })

  it('keeps /health open for the orchestrator when a token is set', async () => {
    const base = await start({ metricsToken: TOKEN })
    expect((await fetch(`${base}/health`)).status).toBe(200)
  })

  it('without a token: open in development, refused in production naming METRICS_TOKEN', async () => {
    const open = await start({})
    expect((await fetch(`${open}/metrics`)).status).toBe(200)
    await server?.close()
    const production = await start({ requireToken: true })
    const refused = await fetch(`${production}/metrics`)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('METRICS_TOKEN')
  })
})
