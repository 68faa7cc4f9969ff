import { OutcomeUnknownSendError } from '@fairlane/core/delivery'
import { PermanentSendError, TransientSendError } from '@fairlane/mail/smtp-errors'
import { describe, expect, it } from 'vitest'
import { isMxSendFailure, parseReply, replyOf, toMxSendFailure } from './smtp-failure'

describe('parseReply', () => {
  it.each([
    [
      'Gmail throttling, multi-line as nodemailer joins it',
      '421-4.7.28 Our system has detected an unusual rate of\n421-4.7.28 unsolicited mail originating from your IP address.\n421 4.7.28 https://support.google.com/mail/?p=UnsolicitedRateLimitError',
      {
        code: 421,
        enhanced: '4.7.28',
        text: 'Our system has detected an unusual rate of\nunsolicited mail originating from your IP address.\nhttps://support.google.com/mail/?p=UnsolicitedRateLimitError',
      },
    ],
    [
      'Microsoft',
      '451 4.7.650 The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
      {
        code: 451,
        enhanced: '4.7.650',
        text: 'The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
      },
    ],
    [
      'Yahoo',
      '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred',
      { code: 421, enhanced: '4.7.0', text: '[TSS04] Messages from 192.0.2.1 temporarily deferred' },
    ],
    ['no enhanced code', '554 Transaction failed', { code: 554, text: 'Transaction failed' }],
    [
      'an accepted message',
      '250 2.0.0 OK: queued as 12',
      { code: 250, enhanced: '2.0.0', text: 'OK: queued as 12' },
    ],
    ['a bare code', '421', { code: 421, text: '' }],
  ])('%s', (_label, response, expected) => {
    expect(parseReply(response)).toEqual(expected)
  })

  it('reads no reply from text without a code, or from anything but a string', () => {
    expect(parseReply('Connection closed unexpectedly')).toBeUndefined()
    expect(parseReply(undefined)).toBeUndefined()
    expect(replyOf(new Error('connect ECONNREFUSED 127.0.0.21:25'))).toBeUndefined()
    expect(
      replyOf(Object.assign(new Error('Message failed'), { response: '452 4.2.2 mailbox full' })),
    ).toEqual({
      code: 452,
      enhanced: '4.2.2',
      text: 'mailbox full',
    })
  })
})

describe('toMxSendFailure', () => {
  const details = { domain: 'example.test', phase: 'data' as const, attempts: [] }

  it('keeps the existing classes and adds the details', () => {
    const reply = Object.assign(new Error('Message failed: 421 4.7.28 slow down'), {
      response: '421 4.7.28 slow down',
      responseCode: 421,
      command: 'DATA',
    })
    const failure = toMxSendFailure(reply, { bodyHandedOff: true, details })
    expect(failure).toBeInstanceOf(TransientSendError)
    expect(failure.smtp).toBe(details)
    expect(isMxSendFailure(failure)).toBe(true)
    expect(isMxSendFailure(new TransientSendError({ message: 'x', suppressRecipient: false }))).toBe(false)
  })

  it('makes a silent failure after the hand-off outcome unknown, and a 5xx permanent', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
    expect(toMxSendFailure(reset, { bodyHandedOff: true, details })).toBeInstanceOf(OutcomeUnknownSendError)
    expect(toMxSendFailure(reset, { bodyHandedOff: false, details })).toBeInstanceOf(TransientSendError)
    const refused = Object.assign(new Error('Can not send mail'), {
      response: '550 5.1.1 no such user',
      responseCode: 550,
      command: 'RCPT TO',
    })
    expect(toMxSendFailure(refused, { bodyHandedOff: false, details })).toBeInstanceOf(PermanentSendError)
  })
})
