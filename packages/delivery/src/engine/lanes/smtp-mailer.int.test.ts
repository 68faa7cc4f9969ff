import { generateKeyPairSync } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { Admission, HandOff, Mailer, OutgoingMail } from '@fairlane/core/delivery'
import { closeLaneTransports, createLaneTransports, type LaneTransports } from '@fairlane/mail'
import { OutcomeUnknownSendError, TransientSendError } from '@fairlane/mail/smtp-errors'
import type { MailSink } from '@fairlane/mailsink/sink'
import { SMTPServer } from 'smtp-server'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startTestSink } from '../../testing/sink'
import { createSmtpMailer } from './smtp-mailer'

/** The mailer against the real sink: when the token is asked, relative to the pool's connections. */
let sink: MailSink
let transports: LaneTransports

beforeEach(async () => {
  sink = await startTestSink()
  transports = createLaneTransports({
    smtpUrl: `smtp://127.0.0.1:${sink.smtpPort}`,
    timeoutMs: 2_000,
    connections: { critical: 1, default: 1, bulk: 2 },
  })
})
afterEach(async () => {
  closeLaneTransports(transports)
  await sink.close()
})

const mail = (to: string): OutgoingMail => ({
  from: 'mail@fairlane.test',
  to,
  envelope: { from: 'bounces@fairlane.test', to },
  subject: `for ${to}`,
  text: 'hello',
  messageId: `<${to}@fairlane.test>`,
  headers: {},
})

/** The use case's order: a connection held, then the token, then the send (or the slot given back). */
async function sendVia(
  mailer: Mailer,
  message: OutgoingMail,
  admit: () => Promise<Admission> = async () => ({ ok: true }),
): Promise<HandOff | Admission> {
  const slot = await mailer.reserve()
  try {
    const admission = await admit()
    if (!admission.ok) return admission
    return await slot.send(message)
  } finally {
    slot.release()
  }
}

describe('createSmtpMailer', () => {
  it('holds a connection from reserve until the slot is released or has sent, failed or not', async () => {
    const mailer = createSmtpMailer(transports.critical, { deadlineMs: 5_000, connections: 1 })
    const first = await mailer.reserve()
    let secondHeld = false
    const second = mailer.reserve().then((slot) => {
      secondHeld = true
      return slot
    })
    await first.send(mail('one@example.test'))
    const held = await second
    expect(secondHeld).toBe(true)
    // A failed send gives its connection back too.
    sink.faults.add({ match: 'nope@example.test', reply: '550 5.1.1 no such user', times: 1 })
    await expect(held.send(mail('nope@example.test'))).rejects.toMatchObject({ responseCode: 550 })
    const third = await mailer.reserve()
    third.release()
    // Given back twice, it still counts once: one connection, one holder.
    third.release()
    const fourth = await mailer.reserve()
    let fifthHeld = false
    const fifth = mailer.reserve().then((slot) => {
      fifthHeld = true
      return slot
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(fifthHeld).toBe(false)
    fourth.release()
    ;(await fifth).release()
    expect(sink.store.list().map((message) => message.to)).toEqual(['one@example.test'])
  })

  it('asks for a token only once a connection is free, so no send waits in the pool after its token', async () => {
    const mailer = createSmtpMailer(transports.bulk, { deadlineMs: 5_000, connections: 2 })
    // The first two are held 300 ms by the sink: the third may not take its token before one is done.
    sink.faults.add({ match: '@slow.test', delayMs: 300 })
    const tokenAtMs = new Map<string, number>()
    const admitting = (to: string) => async () => {
      tokenAtMs.set(to, Date.now())
      return { ok: true as const }
    }
    await Promise.all(
      ['a@slow.test', 'b@slow.test', 'c@fast.test'].map((to) => sendVia(mailer, mail(to), admitting(to))),
    )
    const acceptedAtMs = (to: string) => Date.parse(sink.store.list({ to })[0]?.receivedAt ?? '')
    // The sink stamps a message once it has waited out its fault, just before it answers.
    expect(tokenAtMs.get('c@fast.test')).toBeGreaterThanOrEqual(
      Math.min(acceptedAtMs('a@slow.test'), acceptedAtMs('b@slow.test')),
    )
    expect(tokenAtMs.get('b@slow.test')).toBeLessThan(acceptedAtMs('a@slow.test'))
    expect(sink.store.list()).toHaveLength(3)
  })

  it('sends nothing when the token is refused, and says when to come back', async () => {
    const mailer = createSmtpMailer(transports.critical, { deadlineMs: 5_000, connections: 1 })
    expect(await sendVia(mailer, mail('x@example.test'), async () => ({ ok: false, delayMs: 420 }))).toEqual({
      ok: false,
      delayMs: 420,
    })
    // Accepted: with the server's reply, for the message's `sent` event.
    expect(await sendVia(mailer, mail('y@example.test'))).toEqual({
      response: expect.stringMatching(/^250 /),
    })
    expect(sink.store.list().map((message) => message.to)).toEqual(['y@example.test'])
  })

  it('counts the wait for a connection in the send deadline', async () => {
    const mailer = createSmtpMailer(transports.critical, { deadlineMs: 1_000, connections: 1 })
    // The first send holds the only connection past both deadlines (its token comes slowly, as from
    // a Redis that stalls); the second, still waiting for the connection by then, is not sent.
    const slowToken = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      return { ok: true as const }
    }
    const first = sendVia(mailer, mail('a@example.test'), slowToken).catch((caught: unknown) => caught)
    const second = sendVia(mailer, mail('b@example.test')).catch((caught: unknown) => caught)
    expect(await first).toBeInstanceOf(TransientSendError)
    const late = await second
    expect(late).toBeInstanceOf(TransientSendError)
    expect((late as Error).message).toMatch(/no SMTP connection came free within the send deadline/)
    expect(sink.store.list()).toEqual([])
  })

  it('reports an unknown outcome when the connection drops after the body was handed over', async () => {
    const mailer = createSmtpMailer(transports.critical, { deadlineMs: 5_000, connections: 1 })
    sink.faults.add({ match: 'lost@example.test', dropAfterData: true, times: 1 })
    const error = await sendVia(mailer, mail('lost@example.test')).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OutcomeUnknownSendError)
    expect(error).toMatchObject({ kind: 'outcome-unknown' })
    // The sink did take it: this is the case a retry must not resend at once.
    expect(sink.store.list({ to: 'lost@example.test' })).toHaveLength(1)
  })

  it('reports an unknown outcome when the send deadline cuts off the wait for the reply to DATA', async () => {
    const mailer = createSmtpMailer(transports.critical, { deadlineMs: 1_000, connections: 1 })
    sink.faults.add({ match: 'slow-reply@example.test', delayMs: 3_000, times: 1 })
    const error = await sendVia(mailer, mail('slow-reply@example.test')).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OutcomeUnknownSendError)
  })

  it('keeps a reply after the data transient, and a failure before the body left transient', async () => {
    const mailer = createSmtpMailer(transports.critical, { deadlineMs: 5_000, connections: 1 })
    sink.faults.add({ match: 'later@example.test', reply: '451 4.7.1 try later', times: 1 })
    const answered = await sendVia(mailer, mail('later@example.test')).catch((caught: unknown) => caught)
    expect(answered).toBeInstanceOf(TransientSendError)
    expect(answered).toMatchObject({ responseCode: 451 })

    await sink.close()
    const refused = await sendVia(mailer, mail('nobody-home@example.test')).catch((caught: unknown) => caught)
    expect(refused).toBeInstanceOf(TransientSendError)
    expect(refused).not.toBeInstanceOf(OutcomeUnknownSendError)
  })

  it('keeps a signed send refused before its body left transient, not of unknown outcome', async () => {
    // A server that refuses every recipient: the message never goes past RCPT TO, so however the
    // signer reads the message, the body was not handed over and another attempt is safe.
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (_address, _session, callback) =>
        callback(Object.assign(new Error('4.2.1 mailbox busy'), { responseCode: 450 })),
    })
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
    const port = (refusing.server.address() as AddressInfo).port
    const own = createLaneTransports({
      smtpUrl: `smtp://127.0.0.1:${port}`,
      timeoutMs: 2_000,
      connections: { critical: 1, default: 1, bulk: 1 },
    })
    try {
      const mailer = createSmtpMailer(own.default, { deadlineMs: 5_000, connections: 1 })
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
      const signed = {
        ...mail('busy@example.test'),
        dkim: { domainName: 'news.example', keySelector: 's1', privateKey },
      }
      const refused = await sendVia(mailer, signed).catch((caught: unknown) => caught)
      expect(refused).toBeInstanceOf(TransientSendError)
      expect(refused).not.toBeInstanceOf(OutcomeUnknownSendError)
      expect(refused).toMatchObject({ responseCode: 450 })
    } finally {
      closeLaneTransports(own)
      await new Promise<void>((resolve) => refusing.close(() => resolve()))
    }
  })
})
