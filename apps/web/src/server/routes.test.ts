import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { API_ROUTES } from './routes'

const appDir = fileURLToPath(new URL('../app', import.meta.url))

describe('the route table', () => {
  it('is the only way into /api: Next.js has no route files there', () => {
    // A route file under src/app/api would never be reached (the entry answers every /api path),
    // and would be a second stack with its own container if it were.
    expect(existsSync(`${appDir}/api`) ? readdirSync(`${appDir}/api`, { recursive: true }) : []).toEqual([])
  })

  it('serves the contract’s public API', () => {
    const served = new Set(Object.values(API_ROUTES).map((route) => `${route.method} ${route.path}`))
    for (const call of [
      'POST /api/v1/messages',
      'GET /api/v1/messages/:id',
      'POST /api/v1/contacts',
      'POST /api/v1/campaigns',
      'GET /api/v1/campaigns/:id',
      'POST /api/v1/campaigns/:id/cancel',
      'GET /api/v1/suppressions',
      'POST /api/v1/suppressions',
      'DELETE /api/v1/suppressions/:email',
      'POST /api/v1/suppressions/import',
      'GET /api/v1/suppressions/export',
      'GET /api/v1/openapi.json',
      'GET /api/v1/templates',
      'POST /api/v1/templates',
      'GET /api/v1/templates/:ref',
      'PATCH /api/v1/templates/:ref',
      'PUT /api/v1/templates/:ref',
      'DELETE /api/v1/templates/:ref',
      'POST /api/v1/webhooks',
      'GET /api/v1/webhooks',
      'GET /api/v1/webhooks/:id',
      'PATCH /api/v1/webhooks/:id',
      'DELETE /api/v1/webhooks/:id',
      'GET /api/v1/webhooks/:id/deliveries',
      'POST /api/v1/webhooks/:id/deliveries/:deliveryId/replay',
      'GET /api/health/live',
      'GET /api/health/ready',
      'POST /api/admin/tenants',
      'PATCH /api/admin/tenants/:id',
      'GET /api/admin/tenants',
      'GET /api/admin/queues',
      'GET /api/admin/dlq',
      'POST /api/admin/dlq/:id/replay',
      'DELETE /api/admin/dlq/:id',
      'GET /api/auth/*path',
      'POST /api/auth/*path',
      'GET /t/o/:token',
      'GET /t/c/:token',
    ]) {
      expect(served, call).toContain(call)
    }
  })

  it('has one entry per method and path', () => {
    const keys = Object.values(API_ROUTES).map((route) => `${route.method} ${route.path}`)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
