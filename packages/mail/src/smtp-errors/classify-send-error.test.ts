import { OutcomeUnknownSendError } from '@fairlane/core/delivery'
import { describe, expect, it } from 'vitest'
import { classifySendError, toSendError } from './classify-send-error'
import { PermanentSendError } from './permanent-send-error'
import { TransientSendError } from './transient-send-error'

/** An error shaped as nodemailer's SMTP connection builds it (`_formatError`). */
function smtpReply(response: string, command = 'DATA', code = 'EMESSAGE') {
  return Object.assign(new Error(`Message failed: ${response}`), {
    code,
    response,
    responseCode: Number(response.slice(0, 3)),
    command,
  })
}

function nodeError(code: string, message = `connect ${code} 127.0.0.1:2525`) {
  return Object.assign(new Error(message), { code, errno: -1, syscall: 'connect' })
}

type Expected = [kind: 'transient' | 'permanent', suppress: boolean, enhanced?: string]

const REPLIES: [string, string, Expected][] = [
  // Postfix, virtual mailbox table
  [
    'Postfix unknown user',
    '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
    ['permanent', true, '5.1.1'],
  ],
  // Gmail, multi-line reply as nodemailer joins it
  [
    'Gmail account does not exist',
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550-5.1.1 double-checking the recipient's email address for typos or\n550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
    ['permanent', true, '5.1.1'],
  ],
  [
    'Exchange Online recipient not found',
    '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    ['permanent', true, '5.1.10'],
  ],
  ['generic bad address', '550 5.1.0 Address rejected.', ['permanent', true, '5.1.0']],
  [
    'bad address syntax',
    '553 5.1.3 The recipient address is not a valid RFC-5321 address.',
    ['permanent', true, '5.1.3'],
  ],
  ['no enhanced code, says no such user', '550 No such user here', ['permanent', true]],
  ['sink unknown user', '550 5.1.1 no such user', ['permanent', true, '5.1.1']],
  [
    'Spamhaus block',
    '550 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org',
    ['permanent', false, '5.7.1'],
  ],
  [
    'Gmail DMARC',
    '550 5.7.26 This mail has been blocked because the sender is unauthenticated.',
    ['permanent', false, '5.7.26'],
  ],
  [
    'SES unverified sender',
    '554 5.7.1 Message rejected: Email address is not verified.',
    ['permanent', false, '5.7.1'],
  ],
  ['size limit', '552 5.3.4 Message size exceeds fixed maximum message size', ['permanent', false, '5.3.4']],
  [
    'Exchange "mailbox unavailable" is not proof the address is wrong',
    '550 5.5.0 Requested action not taken: mailbox unavailable',
    ['permanent', false, '5.5.0'],
  ],
  ['greylisting', '451 4.7.1 Greylisting in action, please come back later', ['transient', false, '4.7.1']],
  ['sink try later', '451 4.7.1 try later', ['transient', false, '4.7.1']],
  ['closing connection', '421 4.7.0 Try again later, closing connection.', ['transient', false, '4.7.0']],
  [
    'Gmail rate limited recipient',
    '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
    ['transient', false, '4.2.1'],
  ],
  ['over quota', '452 4.2.2 The email account that you tried to reach is over quota.', ['transient', false]],
  ['temporary server error', '451 4.3.0 Error: queue file write error', ['transient', false, '4.3.0']],
  ['bad sequence is a broken session', '503 5.5.1 Error: need MAIL command', ['transient', false, '5.5.1']],
]

describe('classifySendError on SMTP replies', () => {
  it.each(REPLIES)('%s', (_label, response, [kind, suppress, enhanced]) => {
    const result = classifySendError(smtpReply(response))
    expect(result.kind).toBe(kind)
    expect(result.suppressRecipient).toBe(suppress)
    expect(result.responseCode).toBe(Number(response.slice(0, 3)))
    if (enhanced) expect(result.enhancedCode).toBe(enhanced)
  })

  it('treats a 5.1.1 refusal at RCPT TO like one after DATA', () => {
    const error = smtpReply(
      '550 5.1.1 <nobody@example.com>: Recipient address rejected',
      'RCPT TO',
      'EENVELOPE',
    )
    expect(classifySendError(error)).toMatchObject({ kind: 'permanent', suppressRecipient: true })
  })

  it('keeps 4.1.1 transient: only a permanent answer suppresses', () => {
    expect(classifySendError(smtpReply('450 4.1.1 recipient verification in progress'))).toMatchObject({
      kind: 'transient',
      suppressRecipient: false,
    })
  })

  it('reads the reply code from `response` when `responseCode` is missing', () => {
    const error = Object.assign(new Error('failed'), { response: '554 5.7.1 relay access denied' })
    expect(classifySendError(error)).toMatchObject({ kind: 'permanent', responseCode: 554 })
  })

  it('does not dead-letter mail because our own login failed (5xx to AUTH)', () => {
    const error = smtpReply('535 5.7.8 Username and Password not accepted', 'AUTH PLAIN', 'EAUTH')
    expect(classifySendError(error).kind).toBe('transient')
  })
})

const NETWORK: [string, unknown][] = [
  ['ECONNREFUSED', nodeError('ECONNREFUSED')],
  ['ECONNRESET', nodeError('ECONNRESET', 'read ECONNRESET')],
  ['ETIMEDOUT', nodeError('ETIMEDOUT')],
  ['EPIPE', nodeError('EPIPE', 'write EPIPE')],
  ['ENOTFOUND', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND smtp.invalid')],
  ['EAI_AGAIN', nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN smtp.example.com')],
  ['EHOSTUNREACH', nodeError('EHOSTUNREACH')],
  [
    'nodemailer ESOCKET wrapping ECONNREFUSED',
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), {
      code: 'ESOCKET',
      originalCode: 'ECONNREFUSED',
      command: 'CONN',
    }),
  ],
  [
    'nodemailer greeting timeout',
    Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT', command: 'CONN' }),
  ],
  [
    'nodemailer connection closed',
    Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION', command: 'CONN' }),
  ],
  ['nodemailer DNS', Object.assign(new Error('queryA ESERVFAIL smtp.example.com'), { code: 'EDNS' })],
  [
    'send deadline (AbortSignal.timeout)',
    Object.assign(new Error('Message sending aborted'), { name: 'AbortError', code: 'EABORT' }),
  ],
  [
    'dual-stack refused connect (AggregateError)',
    new AggregateError([nodeError('ECONNREFUSED'), nodeError('ECONNREFUSED')], ''),
  ],
  ['something unrecognised', new TypeError('cannot read properties of undefined')],
  ['a thrown string', 'boom'],
]

describe('classifySendError on Node and nodemailer errors', () => {
  it.each(NETWORK)('%s is transient', (_label, error) => {
    expect(classifySendError(error)).toMatchObject({ kind: 'transient', suppressRecipient: false })
  })

  it('treats a client-side envelope refusal without a server reply as permanent', () => {
    const error = Object.assign(new Error('No recipients defined'), { code: 'EENVELOPE', command: 'API' })
    expect(classifySendError(error)).toMatchObject({ kind: 'permanent', suppressRecipient: false })
  })
})

describe('toSendError', () => {
  it('wraps with the classification and keeps the cause', () => {
    const cause = smtpReply('550 5.1.1 no such user')
    const error = toSendError(cause)
    expect(error).toBeInstanceOf(PermanentSendError)
    expect(error).toMatchObject({ suppressRecipient: true, responseCode: 550, enhancedCode: '5.1.1' })
    expect(error.cause).toBe(cause)
    expect(toSendError(nodeError('ECONNRESET'))).toBeInstanceOf(TransientSendError)
  })

  it('passes an already classified error through unchanged', () => {
    const error = new TransientSendError({ message: 'x', suppressRecipient: false })
    expect(toSendError(error)).toBe(error)
    expect(classifySendError(error)).toEqual({ kind: 'transient', suppressRecipient: false, message: 'x' })
  })
})

describe('toSendError after the body was handed to the server', () => {
  const handedOff = { bodyHandedOff: true }

  it.each([
    [
      'socket timeout waiting for the reply',
      Object.assign(new Error('Timeout'), { code: 'ETIMEDOUT', command: 'DATA' }),
    ],
    ['connection reset', nodeError('ECONNRESET', 'read ECONNRESET')],
    [
      'connection closed',
      Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION' }),
    ],
    [
      'the send deadline',
      Object.assign(new Error('Message sending aborted'), { name: 'AbortError', code: 'EABORT' }),
    ],
    ['a broken pipe mid-body', nodeError('EPIPE', 'write EPIPE')],
  ])('%s: the outcome is unknown, neither transient nor permanent', (_label, cause) => {
    const error = toSendError(cause, handedOff)
    expect(error).toBeInstanceOf(OutcomeUnknownSendError)
    expect(error).toMatchObject({ kind: 'outcome-unknown', suppressRecipient: false })
    expect(error.cause).toBe(cause)
  })

  it('classifies a reply to the data as usual: the server answered, so the outcome is known', () => {
    expect(toSendError(smtpReply('451 4.7.1 try later'), handedOff)).toBeInstanceOf(TransientSendError)
    expect(toSendError(smtpReply('554 5.7.1 rejected'), handedOff)).toBeInstanceOf(PermanentSendError)
  })

  it('keeps the same failures transient before the hand-off (nothing of the body left)', () => {
    const reset = nodeError('ECONNRESET', 'read ECONNRESET')
    expect(toSendError(reset)).toBeInstanceOf(TransientSendError)
    expect(toSendError(reset, { bodyHandedOff: false })).toBeInstanceOf(TransientSendError)
  })
})
