import { TransientSendError } from '@fairlane/mail/smtp-errors'
import { describe, expect, it } from 'vitest'
import { readMxReply } from './read-reply'
import { type MxFailureDetails, withDetails } from './smtp-failure'

function failure(details: Omit<MxFailureDetails, 'domain' | 'attempts'>, message = 'failed') {
  return withDetails(new TransientSendError({ message, suppressRecipient: false }), {
    domain: 'gmail.test',
    attempts: [],
    ...details,
  })
}

describe('readMxReply', () => {
  it('classifies the deciding reply and keeps it on one line, codes first', () => {
    const error = failure({
      phase: 'data',
      reply: {
        code: 421,
        enhanced: '4.7.28',
        text: 'Our system has detected an unusual rate of\nunsolicited mail originating from your IP address.',
      },
    })
    expect(readMxReply(error)).toEqual({
      class: { kind: 'throttle', scope: { kind: 'ip' } },
      reply:
        '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.',
    })
  })

  it('a host that refused or dropped us before replying throttles; its words are the failure', () => {
    const read = readMxReply(
      failure({ phase: 'greeting' }, 'connection closed before the greeting'),
      (text) => text.toUpperCase(),
    )
    expect(read?.class).toEqual({ kind: 'throttle', scope: { kind: 'ip' } })
    expect(read?.reply).toBe('GREETING: CONNECTION CLOSED BEFORE THE GREETING')
  })

  it('says nothing for a DNS failure, an address Fairlane refused, or an error not from the MX transport', () => {
    expect(readMxReply(failure({ phase: 'dns' }))).toBeUndefined()
    expect(readMxReply(failure({ phase: 'policy' }))).toBeUndefined()
    expect(readMxReply(new Error('421 4.7.28 looks like a reply'))).toBeUndefined()
  })
})
