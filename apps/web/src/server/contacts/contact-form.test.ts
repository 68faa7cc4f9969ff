import { describe, expect, it } from 'vitest'
import { attributesText, parseContactForm } from './contact-form'

const form = (fields: Record<string, string>) => {
  const data = new FormData()
  for (const [key, value] of Object.entries(fields)) data.set(key, value)
  return data
}

describe('contact form', () => {
  it('reads email, name and name: value attribute lines', () => {
    expect(
      parseContactForm(form({ email: ' A@B.test ', name: 'Ann', attributes: 'plan: pro\n\ncity : Hanoi' })),
    ).toEqual({
      ok: true,
      contact: { email: 'a@b.test', name: 'Ann', attributes: { plan: 'pro', city: 'Hanoi' } },
    })
  })

  it('puts each error beside its field and keeps what was typed', () => {
    const result = parseContactForm(
      form({ email: 'nope', name: 'x'.repeat(201), attributes: 'no colon here' }),
    )
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.state.values.email).toBe('nope')
    expect(result.state.errors).toEqual({
      email: 'must be a valid email address such as user@example.com',
      name: 'must be at most 200 characters',
      attributes: 'Line 1: write it as name: value (for example plan: pro)',
    })
  })

  it('names a bad attribute key', () => {
    const result = parseContactForm(form({ email: 'a@b.test', attributes: 'first name: Ann' }))
    expect(result.ok ? null : result.state.errors.attributes).toMatch(/^first name must start with a letter/)
  })

  it('shows stored attributes as lines', () => {
    expect(attributesText({ plan: 'pro', seats: 3 })).toBe('plan: pro\nseats: 3')
  })
})
