import { describe, expect, it } from 'vitest'
import { headerRecord, toStoredHeaders, toStoredMessage } from './parse-message'

const CRLF = '\r\n'

describe('toStoredMessage', () => {
  it('builds the record from the raw message and the envelope', async () => {
    const raw = [
      'From: "Ann Sender" <ann@example.com>',
      'To: someone-else@example.com',
      'Subject: Hello there',
      'Message-ID: <abc.123@fairlane.test>',
      'X-Tag: one',
      'X-Tag: two',
      'List-Unsubscribe: <https://example.com/u/very-long-token>,',
      ' <mailto:unsub@example.com>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Hi!',
    ].join(CRLF)
    const receivedAt = new Date('2024-05-01T12:00:00.000Z')
    const message = await toStoredMessage(
      Buffer.from(raw),
      { from: 'bounce+1@example.com', to: ['Bob@Example.com', 'carol@example.com'] },
      receivedAt,
    )
    expect(message).toMatchObject({
      messageId: '<abc.123@fairlane.test>',
      from: '"Ann Sender" <ann@example.com>',
      to: 'Bob@Example.com, carol@example.com',
      recipients: ['bob@example.com', 'carol@example.com'],
      subject: 'Hello there',
      text: 'Hi!',
      html: null,
      receivedAt: '2024-05-01T12:00:00.000Z',
      envelope: { from: 'bounce+1@example.com', to: ['Bob@Example.com', 'carol@example.com'] },
      auth: { dkim: 'none' },
    })
    expect(message.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(message.headers['x-tag']).toBe('one\ntwo')
    expect(message.headers['list-unsubscribe']).toBe(
      '<https://example.com/u/very-long-token>, <mailto:unsub@example.com>',
    )
    expect(message.headers.subject).toBe('Hello there')
  })

  it('keeps the HTML part and tolerates a message without Message-ID or subject', async () => {
    const raw = [
      'From: a@example.com',
      'Content-Type: multipart/alternative; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'plain',
      '--b',
      'Content-Type: text/html',
      '',
      '<p>rich</p>',
      '--b--',
      '',
    ].join(CRLF)
    const message = await toStoredMessage(Buffer.from(raw), { from: '', to: ['x@example.com'] })
    expect(message.messageId).toBeNull()
    expect(message.subject).toBe('')
    expect(message.text.trim()).toBe('plain')
    expect(message.html?.trim()).toBe('<p>rich</p>')
  })
})

describe('headerRecord', () => {
  it('treats header names like "constructor" as ordinary keys', () => {
    const record = headerRecord([
      { key: 'constructor', line: 'Constructor: x' },
      { key: '__proto__', line: '__proto__: y' },
    ])
    expect(record.constructor).toBe('x')
    expect(JSON.stringify(record)).toBe('{"constructor":"x","__proto__":"y"}')
  })
})

describe('toStoredHeaders (MAILSINK_STORE=headers)', () => {
  const message = (lineEnd: string, body: string) =>
    [
      'From: "Ann Sender" <ann@example.com>',
      'Subject: Hello there',
      'Message-ID: <abc.123@fairlane.test>',
      'X-Tag: one',
      'X-Tag: two',
      'List-Unsubscribe: <https://example.com/u/very-long-token>,',
      '\t<mailto:unsub@example.com>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      body,
    ].join(lineEnd)
  const envelope = { from: 'bounce+1@example.com', to: ['Bob@Example.com'] }

  it('keeps the same headers, envelope and ids as the full parse, without the body', async () => {
    for (const lineEnd of [CRLF, '\n']) {
      // A body line that looks like a header must not become one.
      const raw = Buffer.from(message(lineEnd, `Hi!${lineEnd}X-Not-A-Header: body`))
      const receivedAt = new Date('2024-05-01T12:00:00.000Z')
      const full = await toStoredMessage(raw, envelope, receivedAt)
      const light = toStoredHeaders(raw, envelope, receivedAt)
      expect(light.headers).toEqual(full.headers)
      expect(light.headers['x-not-a-header']).toBeUndefined()
      expect(light).toMatchObject({
        messageId: full.messageId,
        from: full.from,
        subject: full.subject,
        to: full.to,
        recipients: full.recipients,
        envelope: full.envelope,
        receivedAt: full.receivedAt,
        text: '',
        html: null,
      })
    }
  })

  it('reads a message with no body at all, and stops at a line that is no header', () => {
    const light = toStoredHeaders(Buffer.from(`Subject: only headers${CRLF}X-A: 1`), envelope)
    expect(light.headers).toEqual({ subject: 'only headers', 'x-a': '1' })
    const broken = toStoredHeaders(Buffer.from(`Subject: s${CRLF}not a header${CRLF}X-B: 2`), envelope)
    expect(broken.headers).toEqual({ subject: 's' })
  })
})
