import { APP_ERROR_CODES, AppError } from '@fairlane/core/errors'
import { describe, expect, it } from 'vitest'
import { collectingLogger } from '../test-support/logger'
import { errorResponse, httpStatusOf, respond } from './errors'

describe('AppError → HTTP', () => {
  it.each([
    ['validation_failed', 400],
    ['invalid_json', 400],
    ['unauthorized', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['idempotency_key_reused', 422],
    ['unprocessable', 422],
    ['rate_limited', 429],
    ['service_unavailable', 503],
  ] as const)('maps %s to %i', (code, status) => {
    expect(httpStatusOf(code)).toBe(status)
  })

  it('has a status for every code', () => {
    for (const code of APP_ERROR_CODES) expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400)
  })

  it('answers {"error": {code, message, details}}', async () => {
    const error = new AppError('validation_failed', 'Invalid request: to: is required', {
      details: [{ path: 'to', message: 'is required' }],
    })
    const response = errorResponse(error, collectingLogger())
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: {
        code: 'validation_failed',
        message: 'Invalid request: to: is required',
        details: [{ path: 'to', message: 'is required' }],
      },
    })
  })

  it('adds Retry-After to 429 and WWW-Authenticate to 401', () => {
    const limited = errorResponse(
      new AppError('rate_limited', 'slow down', { retryAfterSeconds: 7 }),
      collectingLogger(),
    )
    expect(limited.headers.get('retry-after')).toBe('7')
    const unauthorized = errorResponse(new AppError('unauthorized', 'who?'), collectingLogger())
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer realm="fairlane"')
  })

  it('turns anything else into a logged 500 that shows nothing of the cause', async () => {
    const logger = collectingLogger()
    const response = await respond(logger, async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2')
    })
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('ECONNREFUSED')
    const body = JSON.parse(text) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('internal_error')
    expect(logger.lines).toHaveLength(1)
    const reference = /reference ([0-9a-f-]{36})/.exec(body.error.message)?.[1]
    expect(logger.lines[0]?.fields.reference).toBe(reference)
  })
})
