import { AppError } from '@fairlane/core/errors'
import { describe, expect, it } from 'vitest'
import { authenticateAdmin } from './admin-token'
import { bearerToken } from './bearer'

const withAuthorization = (value?: string) =>
  new Request('http://localhost/api/admin/queues', {
    headers: value === undefined ? {} : { authorization: value },
  })

describe('bearer tokens', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer a b', null],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(withAuthorization(header))).toBe(token)
  })
})

describe('admin token', () => {
  const token = 'admin-token-0123456789abcdef'

  it('accepts the configured token and names the actor', () => {
    expect(authenticateAdmin(withAuthorization(`Bearer ${token}`), token)).toEqual({ actor: 'admin-token' })
  })

  it.each([undefined, 'Bearer wrong', `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`])(
    'refuses %j',
    (header) => {
      expect(() => authenticateAdmin(withAuthorization(header), token)).toThrow(AppError)
    },
  )

  it('is closed without ADMIN_TOKEN, whatever is presented', () => {
    expect(() => authenticateAdmin(withAuthorization(`Bearer ${token}`), undefined)).toThrow(
      /ADMIN_TOKEN is not set/,
    )
  })
})
