import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { normaliseLineEndings, readSubmittedMessage } from './submitted-message'

const read = (text: string) => readSubmittedMessage(normaliseLineEndings(Buffer.from(text, 'utf8')))

describe('normaliseLineEndings', () => {
  it('turns bare LF into CRLF, leaves CRLF and a lone CR, and keeps 8-bit bytes', () => {
    const input = Buffer.concat([Buffer.from('a\nb\r\nc\rd\n'), Buffer.from([0xe9, 0x0a])])
    expect(normaliseLineEndings(input)).toEqual(
      Buffer.concat([Buffer.from('a\r\nb\r\nc\rd\r\n'), Buffer.from([0xe9, 0x0d, 0x0a])]),
    )
  })

  it('answers the same buffer when there is nothing to change', () => {
    const input = Buffer.from('a\r\nb\r\n')
    expect(normaliseLineEndings(input)).toBe(input)
  })
})

describe('readSubmittedMessage', () => {
  it('reads From and a folded, encoded Subject, and defaults to the default lane', () => {
    const message = read(
      'From: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?= <a@acme.example>\r\nSubject: =?UTF-8?B?w5xiZXI=?=\r\n folded\r\n\r\nbody\r\n',
    )
    expect(message).toMatchObject({
      from: 'Grüße <a@acme.example>',
      fromCount: 1,
      subject: 'Über folded',
      lane: 'default',
      tags: [],
      idempotencyKey: null,
    })
  })

  it('honours and removes the control headers (folded ones too), keeping the rest byte for byte', () => {
    const text =
      'From: a@acme.example\r\nX-Fairlane-Lane: Critical\r\nX-Fairlane-Tags: a, b,\r\n c\r\nIdempotency-Key: k1\r\nSubject: s\r\n\r\nX-Fairlane-Lane: in the body stays\r\n'
    const message = read(text)
    expect(message).toMatchObject({ lane: 'critical', tags: ['a', 'b', 'c'], idempotencyKey: 'k1' })
    expect(message.raw.toString()).toBe(
      'From: a@acme.example\r\nSubject: s\r\n\r\nX-Fairlane-Lane: in the body stays\r\n',
    )
  })

  it('counts From headers and answers null without one', () => {
    expect(read('From: a@x.example\r\nFrom: b@x.example\r\n\r\n').fromCount).toBe(2)
    expect(read('Subject: none\r\n\r\nbody').from).toBeNull()
  })

  it('refuses a lane other than critical or default, naming the header', () => {
    expect(() => read('From: a@x.example\r\nX-Fairlane-Lane: bulk\r\n\r\n')).toThrow(AppError)
    try {
      read('From: a@x.example\r\nX-Fairlane-Lane: bulk\r\n\r\n')
    } catch (error) {
      expect((error as AppError).details).toEqual([
        { path: 'X-Fairlane-Lane', message: 'must be critical or default' },
      ])
    }
  })

  it('refuses bad tags and too many tags, and a bad Idempotency-Key', () => {
    expect(() => read('From: a@x.example\r\nX-Fairlane-Tags: ok, not ok\r\n\r\n')).toThrow(/X-Fairlane-Tags/)
    const many = Array.from({ length: 11 }, (_, index) => `t${index}`).join(',')
    expect(() => read(`From: a@x.example\r\nX-Fairlane-Tags: ${many}\r\n\r\n`)).toThrow(/at most 10/)
    expect(() => read(`From: a@x.example\r\nIdempotency-Key: ${'k'.repeat(300)}\r\n\r\n`)).toThrow(
      /Idempotency-Key/,
    )
  })
})
