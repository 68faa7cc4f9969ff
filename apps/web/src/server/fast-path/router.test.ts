import { describe, expect, it } from 'vitest'
import { API_ROUTES } from '../routes'
import { createRouter } from './router'

const router = createRouter(Object.values(API_ROUTES))
const claimed = (method: string, url: string) => {
  const lookup = router(method, url)
  return lookup?.kind === 'route' ? { path: lookup.route.path, params: lookup.params } : lookup
}

describe('the router', () => {
  it('claims the table’s routes, with their parameters decoded', () => {
    expect(claimed('POST', '/api/v1/messages')).toEqual({ path: '/api/v1/messages', params: {} })
    expect(claimed('POST', '/api/v1/messages?x=1')).toEqual({ path: '/api/v1/messages', params: {} })
    expect(claimed('GET', '/api/v1/messages/abc%20d')).toEqual({
      path: '/api/v1/messages/:id',
      params: { id: 'abc d' },
    })
    expect(claimed('GET', '/api/health/ready')).toMatchObject({ path: '/api/health/ready' })
    expect(claimed('HEAD', '/api/health/live')).toMatchObject({ path: '/api/health/live' })
    expect(claimed('POST', '/api/admin/dlq/42/replay')).toEqual({
      path: '/api/admin/dlq/:id/replay',
      params: { id: '42' },
    })
    expect(claimed('DELETE', '/api/admin/dlq/42')).toMatchObject({ path: '/api/admin/dlq/:id' })
    expect(claimed('PATCH', '/api/admin/tenants/t1')).toMatchObject({ path: '/api/admin/tenants/:id' })
    expect(claimed('POST', '/api/v1/campaigns')).toMatchObject({ path: '/api/v1/campaigns' })
    expect(claimed('GET', '/api/v1/campaigns/c1')).toEqual({
      path: '/api/v1/campaigns/:id',
      params: { id: 'c1' },
    })
    expect(claimed('POST', '/api/v1/campaigns/c1/cancel')).toMatchObject({
      path: '/api/v1/campaigns/:id/cancel',
    })
    expect(claimed('POST', '/api/v1/contacts')).toMatchObject({ path: '/api/v1/contacts' })
  })

  it('hands better-auth every path under /api/auth/', () => {
    expect(claimed('POST', '/api/auth/sign-in/email')).toEqual({
      path: '/api/auth/*path',
      params: { path: 'sign-in/email' },
    })
    expect(claimed('GET', '/api/auth/get-session?x=1')).toEqual({
      path: '/api/auth/*path',
      params: { path: 'get-session' },
    })
    expect(claimed('GET', '/api/auth')).toEqual({ kind: 'not-found' })
    expect(claimed('GET', '/api/auth/')).toEqual({ kind: 'not-found' })
    expect(claimed('GET', '/api/auth/a/../b')).toEqual({ kind: 'not-found' })
  })

  it.each([
    ['POST', '/api/v1/messages/'], // trailing slash
    ['POST', '//api/v1/messages'],
    ['GET', '/api/v1/messages/'],
    ['GET', '/api/v1/messages/a/b'],
    ['GET', '/api/v1/messages/..'],
    ['GET', '/api/v1/messages/%E0%A4%A'], // malformed escape
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/api'],
  ])('answers %s %s with not-found (the table owns /api)', (method, url) => {
    // `//api/…` is not under /api/ at all: Next.js's, which has no such page.
    if (url.startsWith('//')) expect(claimed(method, url)).toBeNull()
    else expect(claimed(method, url)).toEqual({ kind: 'not-found' })
  })

  it('names the methods a known path has', () => {
    expect(claimed('PUT', '/api/v1/messages')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'POST'] })
    expect(claimed('PUT', '/api/admin/tenants/t1')).toEqual({ kind: 'method-not-allowed', allow: ['PATCH'] })
    expect(claimed('GET', '/api/admin/dlq/1')).toMatchObject({ path: '/api/admin/dlq/:id' })
    expect(claimed('PUT', '/api/admin/dlq/1')).toEqual({
      kind: 'method-not-allowed',
      allow: ['DELETE', 'GET'],
    })
    expect(claimed('DELETE', '/api/auth/sign-out')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST'],
    })
  })

  it.each([
    ['GET', '/'],
    ['GET', '/dashboard'],
    ['POST', '/u/token'],
    ['GET', '/API/health/live'],
    ['GET', '/apis'],
  ])('leaves %s %s to Next.js', (method, url) => {
    expect(claimed(method, url)).toBeNull()
  })
})
