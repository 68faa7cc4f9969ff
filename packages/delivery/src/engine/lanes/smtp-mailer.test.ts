import { closeLaneTransports, createLaneTransports } from '@fairlane/mail'
import { TransientSendError } from '@fairlane/mail/smtp-errors'
import { freePort } from '@fairlane/testing'
import { describe, expect, it } from 'vitest'
import { createSmtpMailer, sendDeadlineMs } from './smtp-mailer'

describe('sendDeadlineMs', () => {
  it('allows three SMTP phases, inside the claim and before the forced exit', () => {
    expect(sendDeadlineMs({ smtpTimeoutMs: 10_000, sendLockMs: 60_000, forceExitMs: 25_000 })).toBe(23_000)
    expect(sendDeadlineMs({ smtpTimeoutMs: 1_000, sendLockMs: 3_000, forceExitMs: 25_000 })).toBe(2_400)
    expect(sendDeadlineMs({ smtpTimeoutMs: 5_000, sendLockMs: 60_000, forceExitMs: 60_000 })).toBe(15_000)
  })
})

describe('createSmtpMailer', () => {
  it('rejects a refused connection as a transient send error', async () => {
    const transports = createLaneTransports({
      smtpUrl: `smtp://127.0.0.1:${await freePort()}`,
      timeoutMs: 2_000,
      connections: { critical: 1, default: 1, bulk: 1 },
    })
    try {
      const mailer = createSmtpMailer(transports.critical, { deadlineMs: 5_000, connections: 1 })
      const slot = await mailer.reserve()
      const error = await slot
        .send({
          from: 'a@example.com',
          to: 'b@example.com',
          envelope: { from: 'bounce@example.com', to: 'b@example.com' },
          subject: 's',
          text: 't',
          messageId: '<x@y>',
          headers: {},
        })
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(TransientSendError)
    } finally {
      closeLaneTransports(transports)
    }
  })
})
