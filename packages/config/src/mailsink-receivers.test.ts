import { describe, expect, it } from 'vitest'
import { parseConfig } from './load'
import { parseMailSinkReceivers } from './mailsink-receivers'

describe('MAILSINK_RECEIVERS', () => {
  it('reads address[:port][=name] entries, naming a receiver by its address when it has no name', () => {
    expect(parseMailSinkReceivers(' 127.0.0.10=Google, 127.0.0.11:2600=microsoft,127.0.0.12 ')).toEqual({
      ok: true,
      value: [
        { name: 'google', address: '127.0.0.10' },
        { name: 'microsoft', address: '127.0.0.11', port: 2600 },
        { name: '127.0.0.12', address: '127.0.0.12' },
      ],
    })
  })

  it('lets receivers share a port number on different addresses', () => {
    const parsed = parseMailSinkReceivers('127.0.0.10:2525=a,127.0.0.11:2525=b')
    expect(parsed.ok).toBe(true)
  })

  it.each([
    ['127.0.0.10=google,127.0.0.11=google', /name "google" is given twice/],
    ['127.0.0.10=a,127.0.0.10=b', /address 127\.0\.0\.10 is given twice/],
    ['127.0.0.300=a', /expected address/],
    ['mx.example.com=a', /expected address/],
    ['127.0.0.10:0=a', /port .* between 1 and 65535/],
    ['127.0.0.10=bad_name', /expected address/],
  ])('refuses %s', (text, message) => {
    const parsed = parseMailSinkReceivers(text)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.message).toMatch(message)
  })

  it('is parsed by the schema, empty when unset, and a bad value names the variable', () => {
    expect(parseConfig({}).MAILSINK_RECEIVERS).toEqual([])
    expect(parseConfig({ MAILSINK_RECEIVERS: '127.0.0.10=google' }).MAILSINK_RECEIVERS).toEqual([
      { name: 'google', address: '127.0.0.10' },
    ])
    expect(() => parseConfig({ MAILSINK_RECEIVERS: 'google' })).toThrow(
      /MAILSINK_RECEIVERS: expected address/,
    )
  })
})
