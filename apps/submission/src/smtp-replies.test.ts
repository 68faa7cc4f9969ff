import { AppError, validationFailed } from '@fairlane/core/errors'
import { describe, expect, it } from 'vitest'
import { smtpReplyOf } from './smtp-replies'

const reply = (error: unknown) => {
  const { error: smtp, refusal } = smtpReplyOf(error)
  return { code: smtp.responseCode, text: smtp.message, refusal }
}

describe('smtpReplyOf', () => {
  it('answers the plan 451 4.7.1 with the wait in seconds', () => {
    const error = new AppError('rate_limited', 'over', { retryAfterSeconds: 7, limit: 'plan' })
    expect(reply(error)).toMatchObject({
      code: 451,
      text: expect.stringMatching(/^4\.7\.1 .*retry in 7 s$/),
      refusal: 'over-plan',
    })
  })

  it('answers a sender refusal 550 5.7.1 with its text, and a bad header 550 5.6.0 naming it', () => {
    expect(reply(new AppError('forbidden', 'From x@y.example is on y.example'))).toMatchObject({
      code: 550,
      text: '5.7.1 From x@y.example is on y.example',
    })
    const invalid = validationFailed([{ path: 'X-Fairlane-Lane', message: 'must be critical or default' }])
    expect(reply(invalid)).toMatchObject({
      code: 550,
      text: expect.stringMatching(/^5\.6\.0 .*X-Fairlane-Lane/),
    })
  })

  it('answers a size refusal 552 5.3.4, and anything unexpected 451 4.3.0 without its details', () => {
    expect(reply(new AppError('payload_too_large', 'too big'))).toMatchObject({
      code: 552,
      text: '5.3.4 too big',
    })
    expect(reply(new Error('connection to PostgreSQL lost at 10.0.0.3'))).toMatchObject({
      code: 451,
      text: expect.not.stringContaining('10.0.0.3'),
      refusal: 'error',
    })
  })
})
