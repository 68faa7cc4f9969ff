import { APIError } from 'better-auth/api'
import { describe, expect, it } from 'vitest'
import { handleAuth } from '../api/auth'
import type { RouteDeps } from '../routes'
import { collectingLogger } from '../test-support/logger'
import { authErrorResponse, isAuthApiError } from './auth-api-error'

/** An APIError as a copy of better-auth compiled into another bundle makes it: same shape, other class. */
class ForeignApiError extends Error {
  override name = 'APIError' as const
  statusCode = 429
  status = 'TOO_MANY_REQUESTS'
  body = { code: 'TOO_MANY_ATTEMPTS', message: 'Too many sign-in attempts. Try again in 1 minute.' }
  headers = { 'Retry-After': '60' }
}

describe('better-auth errors, recognised by shape', () => {
  it('knows better-auth’s own APIError and one from another bundle', () => {
    expect(isAuthApiError(new APIError('UNAUTHORIZED', { code: 'INVALID_EMAIL_OR_PASSWORD' }))).toBe(true)
    expect(isAuthApiError(new ForeignApiError())).toBe(true)
  })

  it('refuses what only looks a little like one', () => {
    expect(isAuthApiError(new Error('APIError'))).toBe(false)
    expect(isAuthApiError({ name: 'APIError', statusCode: 429, status: 'TOO_MANY_REQUESTS' })).toBe(false)
    const wrongStatus = Object.assign(new Error('x'), { name: 'APIError', statusCode: 42, status: 'X' })
    expect(isAuthApiError(wrongStatus)).toBe(false)
    expect(isAuthApiError(null)).toBe(false)
  })

  it('answers as better-auth’s handler would: its status, headers and { code, message, … }', async () => {
    const response = authErrorResponse(new ForeignApiError())
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('60')
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(await response.json()).toEqual({
      code: 'TOO_MANY_ATTEMPTS',
      message: 'Too many sign-in attempts. Try again in 1 minute.',
    })
  })

  it('the /api/auth adapter turns a thrown APIError into that answer, anything else into a logged 500', async () => {
    const logger = collectingLogger()
    const throwing = (error: unknown) =>
      ({
        logger,
        auth: {
          handler: async () => {
            throw error
          },
        },
      }) as unknown as Pick<RouteDeps, 'auth' | 'logger'>
    const request = new Request('http://127.0.0.1/api/auth/sign-in/email', { method: 'POST' })
    const refused = await handleAuth(request, throwing(new ForeignApiError()))
    expect(refused.status).toBe(429)
    expect((await refused.json()).code).toBe('TOO_MANY_ATTEMPTS')
    const broken = await handleAuth(request, throwing(new Error('database is down')))
    expect(broken.status).toBe(500)
    expect((await broken.json()).error.code).toBe('internal_error')
    expect(logger.lines.some((line) => line.level === 'error')).toBe(true)
  })
})
