import { describe, expect, it } from 'vitest'
import { DELIVERY_ERROR_CODES, DELIVERY_ERROR_REASONS, deliveryErrorCodeOf } from './delivery-error-code'
import { MessageLockedError } from './message-locked-error'
import { OutcomeUnknownSendError } from './outcome-unknown-send-error'
import { SigningFailedError } from './signing-failed-error'
import { UndeliverableMessageError } from './undeliverable-message-error'

/** A SendFailure as `@fairlane/mail/smtp-errors` builds them. */
function failure(
  kind: 'transient' | 'permanent',
  fields: { responseCode?: number; suppressRecipient?: boolean },
) {
  return Object.assign(new Error('raw reply naming relay-7.internal.example'), {
    kind,
    suppressRecipient: fields.suppressRecipient ?? false,
    ...(fields.responseCode !== undefined ? { responseCode: fields.responseCode } : {}),
  })
}

describe('deliveryErrorCodeOf', () => {
  it.each([
    [
      'a 5.1.1 refusal',
      failure('permanent', { responseCode: 550, suppressRecipient: true }),
      'recipient_unknown',
    ],
    ['a policy refusal', failure('permanent', { responseCode: 554 }), 'rejected'],
    ['a client-side refusal', failure('permanent', {}), 'invalid_message'],
    ['a 451', failure('transient', { responseCode: 451 }), 'deferred'],
    ['a reset before the body', failure('transient', {}), 'connection_failed'],
    [
      'a lost reply after the body',
      new OutcomeUnknownSendError('Connection closed unexpectedly'),
      'outcome_unknown',
    ],
    [
      'campaign mail without content',
      new UndeliverableMessageError('the campaign contact no longer exists'),
      'undeliverable',
    ],
    ['a held claim', new MessageLockedError('m', 10), 'connection_failed'],
    ['a message the signer left unsigned', new SigningFailedError('no signature'), 'signing_failed'],
    ['something unrecognised', new TypeError('x is undefined'), 'connection_failed'],
  ])('%s → %s', (_label, error, code) => {
    expect(deliveryErrorCodeOf(error)).toBe(code)
  })

  it('has a short fixed reason for every code, naming no host or address', () => {
    for (const code of DELIVERY_ERROR_CODES) {
      const reason = DELIVERY_ERROR_REASONS[code]
      expect(reason.length).toBeGreaterThan(10)
      expect(reason.length).toBeLessThan(120)
      expect(reason).not.toMatch(/@|\.example|\d{3}/)
    }
  })
})
