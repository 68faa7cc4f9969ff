import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AppError, isAppError, validationFailed } from './app-error'
import { dotted, fieldIssues } from './zod-issues'

describe('AppError', () => {
  it('carries a code, details and a retry hint', () => {
    const error = new AppError('rate_limited', 'slow down', { retryAfterSeconds: 3 })
    expect(isAppError(error)).toBe(true)
    expect(error).toBeInstanceOf(Error)
    expect(error.code).toBe('rate_limited')
    expect(error.retryAfterSeconds).toBe(3)
    expect(isAppError(new Error('x'))).toBe(false)
  })

  it('names the first invalid field in the message of a validation error', () => {
    const error = validationFailed([
      { path: 'to', message: 'is required' },
      { path: 'subject', message: 'is required' },
    ])
    expect(error.message).toBe('Invalid request: to: is required (and 1 more)')
    expect(error.details).toHaveLength(2)
  })

  it('turns zod issues into dotted paths, one per unrecognized key', () => {
    const schema = z.strictObject({ list: z.array(z.strictObject({ email: z.email() })) })
    const result = schema.safeParse({ list: [{ email: 'x' }], extra: 1, other: 2 })
    expect(result.success).toBe(false)
    if (result.success) return
    const paths = fieldIssues(result.error).map((issue) => issue.path)
    expect(paths.sort()).toEqual(['extra', 'list[0].email', 'other'])
    expect(dotted(['variables', 'code'])).toBe('variables.code')
  })
})
