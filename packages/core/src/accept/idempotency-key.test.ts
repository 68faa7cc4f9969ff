import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { parseIdempotencyKey } from './idempotency-key'

describe('Idempotency-Key header', () => {
  it('is optional', () => {
    expect(parseIdempotencyKey(null)).toBeNull()
  })

  it('accepts 1 to 255 printable characters', () => {
    expect(parseIdempotencyKey('k')).toBe('k')
    expect(parseIdempotencyKey('order-42/retry ~ #1')).toBe('order-42/retry ~ #1')
    expect(parseIdempotencyKey('x'.repeat(255))).toHaveLength(255)
  })

  it.each([
    ['', 'empty'],
    ['x'.repeat(256), 'too long'],
    ['caf\u00e9', 'not ASCII'],
    ['a\u0001b', 'a control character'],
  ])('refuses %j (%s) with a 400 naming the header', (value) => {
    let error: unknown
    try {
      parseIdempotencyKey(value)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('validation_failed')
    expect((error as AppError).details?.[0]?.path).toBe('Idempotency-Key')
  })
})
