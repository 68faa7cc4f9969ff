import { closeLaneTransports, createLaneTransports } from '@fairlane/mail'
import { TransientSendError } from '@fairlane/mail/smtp-errors'
import { freePort } from '@fairlane/testing'
import { describe, expect, it } from 'vitest'
import { createFirstTurns } from './first-turns'
import { createSlotMailer, createSmtpMailer, sendDeadlineMs } from './smtp-mailer'

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

describe('createSlotMailer: a held connection', () => {
  const mail = (id: string) => ({
    from: 'a@example.com',
    to: 'b@example.com',
    envelope: { from: 'bounce@example.com', to: 'b@example.com' },
    subject: id,
    text: 't',
    messageId: `<${id}@y>`,
    headers: {},
  })

  /** A mailer of one connection whose sends finish when the test says, recording their order. */
  function recordingMailer() {
    const sent: string[] = []
    const mailer = createSlotMailer(
      async (outgoing) => {
        sent.push(String(outgoing.subject))
        return { response: '250 ok' }
      },
      { deadlineMs: 2_000, connections: 1 },
    )
    return { mailer, sent }
  }

  it("lets a new flow's first send in between two messages of a batch, then goes on", async () => {
    const { mailer, sent } = recordingMailer()
    const batch = await mailer.hold?.(undefined, { ahead: false })
    if (!batch) throw new Error('the slot mailer holds connections')
    await batch.send(mail('batch-1'))
    const waitingBatch = mailer.hold?.(undefined, { ahead: false })
    const newcomer = mailer.reserve(undefined, { ahead: true })
    await Promise.resolve()
    const second = batch.send(mail('batch-2'))
    const slot = await newcomer
    await slot.send(mail('newcomer-1'))
    await second
    batch.release()
    const other = await waitingBatch
    await other?.send(mail('other-batch-1'))
    other?.release()
    expect(sent).toEqual(['batch-1', 'newcomer-1', 'batch-2', 'other-batch-1'])
  })

  it("does not make a first turn's own batch yield, nor a batch before its first message", async () => {
    const { mailer, sent } = recordingMailer()
    const first = await mailer.hold?.(undefined, { ahead: true })
    if (!first) throw new Error('the slot mailer holds connections')
    const next = mailer.reserve(undefined, { ahead: true })
    await first.send(mail('first-1'))
    await first.send(mail('first-2'))
    first.release()
    await (await next).send(mail('next-1'))
    expect(sent).toEqual(['first-1', 'first-2', 'next-1'])
  })

  it('fails a send whose wait to resume runs out as transient; the next send waits for a place again', async () => {
    const sent: string[] = []
    const mailer = createSlotMailer(
      async (outgoing) => {
        sent.push(String(outgoing.subject))
        return {}
      },
      { deadlineMs: 50, connections: 1 },
    )
    const batch = await mailer.hold?.(undefined, { ahead: false })
    if (!batch) throw new Error('the slot mailer holds connections')
    await batch.send(mail('batch-1'))
    const newcomer = mailer.reserve(undefined, { ahead: true })
    const late = batch.send(mail('batch-2')).catch((caught: unknown) => caught)
    const slot = await newcomer
    // The newcomer holds its place past the batch's 50 ms deadline.
    expect(await late).toBeInstanceOf(TransientSendError)
    await slot.send(mail('newcomer-1'))
    await batch.send(mail('batch-3'))
    batch.release()
    batch.release()
    expect(sent).toEqual(['batch-1', 'newcomer-1', 'batch-3'])
    await expect(batch.send(mail('after'))).rejects.toThrow(/already given back/)
  })

  it("holds a batch's next message and an old flow's reserve while a first turn is in progress, not the first turn's own", async () => {
    const turns = createFirstTurns({ maxPauseMs: 10_000 })
    const sent: string[] = []
    const mailer = createSlotMailer(
      async (outgoing) => {
        sent.push(String(outgoing.subject))
        return {}
      },
      { deadlineMs: 5_000, connections: 4, firstTurns: turns },
    )
    const batch = await mailer.hold?.(undefined, { ahead: false })
    if (!batch) throw new Error('the slot mailer holds connections')
    await batch.send(mail('batch-1'))
    const leave = turns.enter()
    const next = batch.send(mail('batch-2'))
    const single = mailer.reserve(undefined, { ahead: false }).then((slot) => slot.send(mail('single')))
    const first = await mailer.reserve(undefined, { ahead: true })
    await first.send(mail('first-turn'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(sent).toEqual(['batch-1', 'first-turn'])
    leave()
    await Promise.all([next, single])
    batch.release()
    expect(sent.slice(2).sort()).toEqual(['batch-2', 'single'])
  })
})
