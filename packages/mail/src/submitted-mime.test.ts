import { describe, expect, it } from 'vitest'
import { rewriteSubmittedMessage } from './submitted-mime'

const submitted = [
  'From: App <app@acme.test>',
  'To: user@example.test',
  'Bcc: hidden@example.test',
  'Return-Path: <bounce@elsewhere.test>',
  'Message-ID: <theirs@app.local>',
  'DKIM-Signature: v=1; a=rsa-sha256; d=app.local; s=x; b=abc',
  'X-Fairlane-Lane: critical',
  'Auto-Submitted: no',
  'Subject: Invoice',
  'Date: Sun, 06 Dec 2026 10:00:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain',
  '',
  'Message-ID: <not-a-header@body>',
  '--b1--',
  '',
].join('\r\n')

describe('rewriteSubmittedMessage', () => {
  it('replaces Message-ID, drops Bcc, Return-Path, old signatures and our instructions, adds our headers', () => {
    const out = rewriteSubmittedMessage(Buffer.from(submitted), {
      messageId: '<m1@fairlane.test>',
      headers: { 'Auto-Submitted': 'auto-generated', 'Feedback-ID': 'm1:t1:default:fairlane' },
    }).toString()
    const [header = '', ...rest] = out.split('\r\n\r\n')
    const body = rest.join('\r\n\r\n')
    const names = header.split('\r\n').map((line) => line.slice(0, line.indexOf(':')).toLowerCase())
    expect(names).toEqual([
      'message-id',
      'auto-submitted',
      'feedback-id',
      'from',
      'to',
      'subject',
      'date',
      'mime-version',
      'content-type',
    ])
    expect(header).toContain('Message-ID: <m1@fairlane.test>')
    expect(header).toContain('Auto-Submitted: auto-generated')
    expect(header).not.toMatch(/theirs@app\.local|hidden@|bounce@elsewhere|DKIM-Signature|X-Fairlane/i)
    // The body is copied byte for byte, a header-like line in it included.
    expect(body).toBe(submitted.split('\r\n\r\n').slice(1).join('\r\n\r\n'))
  })

  it('adds a Date when the submission had none, and reads a bare-LF header block', () => {
    const out = rewriteSubmittedMessage(Buffer.from('From: a@acme.test\nSubject: Hi\n\nhello\n'), {
      messageId: '<m2@fairlane.test>',
      headers: {},
      now: new Date('2026-12-06T10:00:00Z'),
    }).toString()
    expect(out).toBe(
      'Message-ID: <m2@fairlane.test>\r\nDate: Sun, 06 Dec 2026 10:00:00 +0000\r\nFrom: a@acme.test\r\nSubject: Hi\r\n\r\nhello\n',
    )
  })
})
