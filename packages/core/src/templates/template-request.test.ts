import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { checkTemplateContent } from './check-template-content'
import { parseNewTemplate, parseTemplateChange, parseTemplateReplacement } from './template-request'

function refusal(run: () => unknown): AppError {
  try {
    run()
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

const valid = { slug: 'welcome-2', subject: 'Hi {{name}}', html: '<p>Hi {{name}}</p>' }

describe('a new template', () => {
  it('reads slug, name (defaulting to the slug), subject and the parts', () => {
    const noSender = { from: null, replyTo: null }
    expect(parseNewTemplate(valid)).toEqual({ ...valid, name: 'welcome-2', text: null, sender: noSender })
    expect(parseNewTemplate({ slug: 'plain', name: ' Plain ', subject: 'S', text: 'only text' })).toEqual({
      slug: 'plain',
      name: 'Plain',
      subject: 'S',
      html: null,
      text: 'only text',
      sender: noSender,
    })
  })

  it('reads an optional from and replyTo as normalised header values', () => {
    expect(
      parseNewTemplate({ ...valid, from: 'News <news@Example.COM>', replyTo: 'help@example.org' }).sender,
    ).toEqual({ from: '"News" <news@example.com>', replyTo: 'help@example.org' })
    expect(parseNewTemplate({ ...valid, from: '', replyTo: null }).sender).toEqual({
      from: null,
      replyTo: null,
    })
  })

  it.each([
    ['an uppercase slug', { ...valid, slug: 'Welcome' }, 'slug', 'lowercase'],
    ['a slug with a dot', { ...valid, slug: 'a.b' }, 'slug', 'lowercase'],
    ['a slug ending in a hyphen', { ...valid, slug: 'welcome-' }, 'slug', 'lowercase'],
    ['a missing slug', { subject: 'S', html: 'x' }, 'slug', 'is required'],
    ['a slug of 65 characters', { ...valid, slug: 'a'.repeat(65) }, 'slug', 'at most 64'],
    ['the built-in otp', { ...valid, slug: 'otp' }, 'slug', 'built-in'],
    ['the built-in password-reset', { ...valid, slug: 'password-reset' }, 'slug', 'built-in'],
    ['the built-in verify-email', { ...valid, slug: 'verify-email' }, 'slug', 'built-in'],
    ['no subject', { slug: 'a', html: 'x' }, 'subject', 'is required'],
    ['a two-line subject', { ...valid, subject: 'a\r\nBcc: x@y.test' }, 'subject', 'single line'],
    ['a 501-character subject', { ...valid, subject: 'x'.repeat(501) }, 'subject', 'at most 500'],
    ['neither html nor text', { slug: 'a', subject: 'S' }, 'html', 'html, text or both'],
    ['blank html and no text', { slug: 'a', subject: 'S', html: '  ' }, 'html', 'html, text or both'],
    ['html that is not a string', { ...valid, html: 42 }, 'html', 'string'],
    ['an unknown field', { ...valid, body: 'x' }, 'body', 'not a recognized field'],
    ['CRLF in from', { ...valid, from: 'a@example.com\r\nBcc: b@x.test' }, 'from', 'single line'],
    ['a from without an address', { ...valid, from: 'News' }, 'from', 'valid email address'],
    ['a replyTo that is not an address', { ...valid, replyTo: 'nobody' }, 'replyTo', 'valid email address'],
  ])('refuses %s, naming the field', (_, body, path, message) => {
    const error = refusal(() => parseNewTemplate(body))
    expect(error.code).toBe('validation_failed')
    expect(error.details?.[0]?.path).toBe(path)
    expect(error.details?.[0]?.message).toContain(message)
  })
})

describe('a change', () => {
  it('keeps only what is given; null removes a part', () => {
    expect(parseTemplateChange({ subject: 'New' })).toEqual({ subject: 'New' })
    expect(parseTemplateChange({ text: null, html: '' })).toEqual({ text: null, html: null })
    expect(parseTemplateChange({ from: null })).toEqual({ from: null })
  })

  it('refuses a new slug with the reason', () => {
    const error = refusal(() => parseTemplateChange({ slug: 'other' }))
    expect(error.details).toEqual([{ path: 'slug', message: expect.stringContaining('cannot be changed') }])
  })

  it('takes a full replacement with or without the slug', () => {
    expect(parseTemplateReplacement({ subject: 'S', text: 't' })).toEqual({
      slug: null,
      change: { name: undefined, subject: 'S', html: null, text: 't', from: null, replyTo: null },
    })
    expect(refusal(() => parseTemplateReplacement({ subject: 'S' })).details?.[0]?.path).toBe('html')
  })
})

describe('content checks', () => {
  const checker = {
    syntaxError: (template: string) => (template.includes('{{#') ? 'Unclosed section' : null),
  }

  it('names the field whose template does not parse', () => {
    const error = refusal(() => checkTemplateContent({ subject: 'S', html: 'ok', text: '{{#x}}' }, checker))
    expect(error.code).toBe('validation_failed')
    expect(error.details).toEqual([{ path: 'text', message: 'is not a valid template: Unclosed section' }])
  })

  it('refuses HTML over 512 KB as too large, naming html, before parsing it', () => {
    const html = 'x'.repeat(512 * 1024 + 1)
    const error = refusal(() =>
      checkTemplateContent({ subject: 'S', html, text: null }, { syntaxError: () => 'parsed' }),
    )
    expect(error.code).toBe('payload_too_large')
    expect(error.details?.[0]?.path).toBe('html')
  })
})
