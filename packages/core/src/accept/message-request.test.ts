import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { parseMessageRequest } from './message-request'

function refusal(body: unknown): AppError {
  try {
    parseMessageRequest(body)
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`)
}

describe('POST /api/v1/messages body', () => {
  it('reads a template request, defaulting variables to {}', () => {
    expect(parseMessageRequest({ to: 'a@b.test', template: 'otp', variables: { code: '1234' } })).toEqual({
      to: 'a@b.test',
      content: { kind: 'template', template: 'otp', variables: { code: '1234' } },
      sender: {},
      tracking: { opens: false, clicks: false },
    })
    expect(parseMessageRequest({ to: 'a@b.test', template: 'welcome' }).content).toEqual({
      kind: 'template',
      template: 'welcome',
      variables: {},
    })
  })

  it('reads custom content', () => {
    expect(parseMessageRequest({ to: 'a@b.test', subject: 'Hi', text: 'hello' })).toEqual({
      to: 'a@b.test',
      content: { kind: 'custom', subject: 'Hi', html: undefined, text: 'hello' },
      sender: {},
      tracking: { opens: false, clicks: false },
    })
  })

  it('reads tracking (off unless asked for) and names a wrong switch', () => {
    const body = { to: 'a@b.test', subject: 'Hi', html: '<p>x</p>' }
    expect(parseMessageRequest({ ...body, tracking: { opens: true } }).tracking).toEqual({
      opens: true,
      clicks: false,
    })
    expect(
      parseMessageRequest({ to: 'a@b.test', template: 'otp', tracking: { clicks: true } }).tracking,
    ).toEqual({
      opens: false,
      clicks: true,
    })
    expect(refusal({ ...body, tracking: { opens: 'yes' } }).details).toEqual([
      expect.objectContaining({ path: 'tracking.opens' }),
    ])
  })

  it('reads from and replyTo, normalised, with either kind of content', () => {
    const sender = { from: '"News" <news@example.com>', replyTo: 'help@example.org' }
    expect(
      parseMessageRequest({
        to: 'a@b.test',
        template: 'welcome',
        from: 'News <news@EXAMPLE.com>',
        replyTo: 'help@example.org',
      }).sender,
    ).toEqual(sender)
    expect(
      parseMessageRequest({ to: 'a@b.test', subject: 'Hi', text: 'x', from: sender.from }).sender,
    ).toEqual({ from: sender.from })
  })

  it.each([
    ['a JSON array', [], '', 'JSON object'],
    ['a string', 'hello', '', 'JSON object'],
    ['null', null, '', 'JSON object'],
    ['no recipient', { template: 'otp' }, 'to', 'is required'],
    ['a recipient that is not a string', { to: 42, template: 'otp' }, 'to', 'must be an email address'],
    ['an invalid address', { to: 'not-an-address', template: 'otp' }, 'to', 'valid email address'],
    [
      'an address with a display name',
      { to: 'Ann <a@b.test>', template: 'otp' },
      'to',
      'valid email address',
    ],
    ['CRLF in the recipient', { to: 'a@b.test\r\nBcc: c@d.test', template: 'otp' }, 'to', 'single line'],
    ['LF in the recipient', { to: 'a@b.test\n', template: 'otp' }, 'to', 'single line'],
    ['an over-long address', { to: `${'a'.repeat(250)}@b.test`, template: 'otp' }, 'to', 'at most 254'],
    ['an empty template name', { to: 'a@b.test', template: '' }, 'template', 'template slugs'],
    ['a template name with a slash', { to: 'a@b.test', template: '../x' }, 'template', 'template slugs'],
    [
      'variables that are not an object',
      { to: 'a@b.test', template: 'otp', variables: [1] },
      'variables',
      'object',
    ],
    [
      'subject together with a template',
      { to: 'a@b.test', template: 'otp', subject: 'x' },
      'subject',
      'not a recognized field',
    ],
    ['neither html nor text', { to: 'a@b.test', subject: 'Hi' }, 'html', 'give html, text or both'],
    ['no subject', { to: 'a@b.test', html: '<p>x</p>' }, 'subject', 'is required'],
    [
      'CR in the subject',
      { to: 'a@b.test', subject: 'Hi\rBcc: x@y.test', text: 'x' },
      'subject',
      'single line',
    ],
    ['LF in the subject', { to: 'a@b.test', subject: 'Hi\nthere', text: 'x' }, 'subject', 'single line'],
    ['NUL in the subject', { to: 'a@b.test', subject: 'Hi\u0000', text: 'x' }, 'subject', 'single line'],
    ['an empty subject', { to: 'a@b.test', subject: '', text: 'x' }, 'subject', 'must not be empty'],
    ['an empty html part', { to: 'a@b.test', subject: 'Hi', html: '' }, 'html', 'must not be empty'],
    [
      'an unknown field',
      { to: 'a@b.test', subject: 'Hi', text: 'x', cc: 'c@d.test' },
      'cc',
      'not a recognized field',
    ],
    ['variables without a template', { to: 'a@b.test', variables: { code: '1' } }, 'template', 'is required'],
    [
      'CRLF in from',
      { to: 'a@b.test', template: 'otp', from: 'a@example.com\r\nBcc: c@d.test' },
      'from',
      'single line',
    ],
    [
      'a display name of 201 characters',
      { to: 'a@b.test', subject: 'Hi', text: 'x', from: `"${'n'.repeat(201)}" <a@example.com>` },
      'from',
      'longer than 200',
    ],
    ['an empty from', { to: 'a@b.test', subject: 'Hi', text: 'x', from: '' }, 'from', 'must not be empty'],
    ['a from that is not a string', { to: 'a@b.test', template: 'otp', from: 42 }, 'from', 'string'],
    [
      'a replyTo with LF',
      { to: 'a@b.test', template: 'otp', replyTo: 'a@b.test\n' },
      'replyTo',
      'single line',
    ],
  ])('refuses %s, naming the field', (_label, body, path, message) => {
    const error = refusal(body)
    expect(error.code).toBe('validation_failed')
    expect(error.details).toContainEqual({ path, message: expect.stringContaining(message) })
    expect(error.message).toContain('Invalid request')
  })
})
