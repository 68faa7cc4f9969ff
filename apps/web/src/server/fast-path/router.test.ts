import { describe, expect, it } from 'vitest'
import { API_ROUTES } from '../routes'
import { createRouter } from './router'

const router = createRouter(Object.values(API_ROUTES))
const claimed = (method: string, url: string) => {
  const match = router(method, url)
  return match ? { path: match.route.path, params: match.params } : null
}

describe('the fast-path router', () => {
  it('claims the table’s routes, with their parameters decoded', () => {
    expect(claimed('POST', '/api/v1/messages')).toEqual({ path: '/api/v1/messages', params: {} })
    expect(claimed('POST', '/api/v1/messages?x=1')).toEqual({ path: '/api/v1/messages', params: {} })
    expect(claimed('GET', '/api/v1/messages/abc%20d')).toEqual({
      path: '/api/v1/messages/:id',
      params: { id: 'abc d' },
    })
    expect(claimed('GET', '/api/health/ready')?.path).toBe('/api/health/ready')
    expect(claimed('POST', '/api/admin/dlq/42/replay')).toEqual({
      path: '/api/admin/dlq/:id/replay',
      params: { id: '42' },
    })
    expect(claimed('DELETE', '/api/admin/dlq/42')?.path).toBe('/api/admin/dlq/:id')
    expect(claimed('PATCH', '/api/admin/tenants/t1')?.path).toBe('/api/admin/tenants/:id')
  })

  it.each([
    ['GET', '/api/v1/messages'], // another method: Next.js answers 405
    ['HEAD', '/api/health/live'],
    ['POST', '/api/v1/messages/'], // trailing slash: Next.js redirects
    ['POST', '//api/v1/messages'],
    ['GET', '/api/v1/messages/'],
    ['GET', '/api/v1/messages/a/b'],
    ['GET', '/api/v1/messages/..'],
    ['GET', '/api/v1/messages/%E0%A4%A'], // malformed escape
    ['POST', '/api/auth/sign-in/email'], // better-auth's catch-all
    ['POST', '/api/v1/contacts'], // an API route that is not in the table
    ['GET', '/'],
    ['GET', '/dashboard'],
    ['GET', '/API/health/live'],
  ])('leaves %s %s to Next.js', (method, url) => {
    expect(claimed(method, url)).toBeNull()
  })
})
