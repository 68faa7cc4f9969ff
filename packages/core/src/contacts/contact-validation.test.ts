import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { MAX_CONTACTS_PER_REQUEST, parseContactsRequest } from './parse-contacts-request'
import { validateContact } from './validate-contact'

function refusal(body: unknown): AppError {
  try {
    parseContactsRequest(body)
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('validateContact', () => {
  it('lowercases and trims the email, trims the name, defaults attributes', () => {
    expect(validateContact({ email: ' Ann@Example.TEST', name: '  Ann ' })).toEqual({
      ok: true,
      contact: { email: 'ann@example.test', name: 'Ann', attributes: {} },
    })
    expect(validateContact({ email: 'a@b.test', name: '   ' })).toMatchObject({ contact: { name: null } })
  })

  it('accepts flat string, number and boolean attributes with identifier keys', () => {
    const attributes = { plan: 'pro', seats: 3, _beta: true }
    expect(validateContact({ email: 'a@b.test', attributes })).toMatchObject({
      ok: true,
      contact: { attributes },
    })
  })

  it.each([
    [{ email: 'nope' }, 'email'],
    [{}, 'email'],
    [{ email: 42 }, 'email'],
    [{ email: 'a@b.test', name: 'x'.repeat(201) }, 'name'],
    [{ email: 'a@b.test', attributes: { 'first name': 'x' } }, 'attributes.first name'],
    [{ email: 'a@b.test', attributes: { '1st': 'x' } }, 'attributes.1st'],
    [{ email: 'a@b.test', attributes: { email: 'x' } }, 'attributes.email'],
    [{ email: 'a@b.test', attributes: { nested: { a: 1 } } }, 'attributes.nested'],
    [{ email: 'a@b.test', attributes: { nothing: null } }, 'attributes.nothing'],
    [{ email: 'a@b.test', attributes: ['x'] }, 'attributes'],
    [{ email: 'a@b.test', phone: '1' }, 'phone'],
  ])('refuses %j naming %s', (input, path) => {
    const result = validateContact(input)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.issues.map((issue) => issue.path)).toContain(path)
  })

  it('refuses more than 50 attributes', () => {
    const attributes = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))
    expect(validateContact({ email: 'a@b.test', attributes })).toMatchObject({
      ok: false,
      issues: [{ path: 'attributes', message: 'must have at most 50 keys' }],
    })
  })
})

describe('POST /api/v1/contacts body', () => {
  it('returns normalised contacts', () => {
    expect(parseContactsRequest({ contacts: [{ email: 'A@b.test', attributes: { n: 1 } }] })).toEqual([
      { email: 'a@b.test', name: null, attributes: { n: 1 } },
    ])
  })

  it('names the index and field of each bad entry', () => {
    const error = refusal({ contacts: [{ email: 'a@b.test' }, { email: 'x' }, 'str', { email: 'A@B.test' }] })
    expect(error.code).toBe('validation_failed')
    expect(error.details?.map((issue) => issue.path)).toEqual([
      'contacts[1].email',
      'contacts[2]',
      'contacts[3].email',
    ])
    expect(error.details?.[2]?.message).toBe('repeats contacts[0].email')
  })

  it.each([
    [[], ''],
    [{}, 'contacts'],
    [{ contacts: {} }, 'contacts'],
    [{ contacts: [] }, 'contacts'],
    [{ contacts: [{ email: 'a@b.test' }], extra: 1 }, 'extra'],
  ])('refuses %j naming %s', (body, path) => {
    expect(refusal(body).details?.[0]?.path).toBe(path)
  })

  it('refuses more than 10,000 contacts as too large, naming the limit', () => {
    const contacts = Array.from({ length: MAX_CONTACTS_PER_REQUEST + 1 }, (_, i) => ({
      email: `u${i}@b.test`,
    }))
    const error = refusal({ contacts })
    expect(error.code).toBe('payload_too_large')
    expect(error.message).toContain('10000')
  })
})
