import { setTimeout as sleep } from 'node:timers/promises'
import {
  type MailSlot,
  MessageLockedError,
  OutcomeUnknownSendError,
  type OutgoingMail,
  openGate,
  recordAcceptedSend,
  type SendDeps,
  SendNotRecordedError,
  sendMessage,
  UndeliverableMessageError,
} from '@fairlane/core/delivery'
import { createDatabase, type DatabaseHandle, messages, suppressions } from '@fairlane/db'
import { claimMessage, createDeliveryStore, markMessageSent } from '@fairlane/db/queries/delivery'
import { findSigningDomain } from '@fairlane/db/queries/sender-signing'
import { messageIdFor } from '@fairlane/mail'
import { PermanentSendError, TransientSendError } from '@fairlane/mail/smtp-errors'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expireClaim, readMessageWithClaim } from '../../testing/claims'
import {
  TEST_BOUNCE_DOMAIN,
  TEST_DKIM_ENCRYPTION_KEYS,
  TEST_UNSUBSCRIBE_SECRETS,
} from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import { createSenderSigner } from './sender-signer'

/**
 * The send use case against real PostgreSQL (the store is the thing under test as much as the use
 * case: its claim is what makes concurrent sends safe) and a recording mailer in place of SMTP.
 */
const test = setupTestEnvironment('send-message')
let database: DatabaseHandle
let tenantId: string

beforeAll(async () => {
  database = createDatabase(test.databaseUrl, { max: 25 })
  tenantId = await createTenant(database.db)
})
afterAll(async () => {
  await database?.close()
})

/**
 * Records accepted mail; `fail` decides per call (1-based) whether and how a send fails. `held()` counts
 * the connection slots reserved and not yet given back: every test ends with none.
 */
function recordingMailer(options: { fail?: (call: number) => Error | undefined; delayMs?: number } = {}) {
  const accepted: OutgoingMail[] = []
  let calls = 0
  let held = 0
  return {
    accepted,
    calls: () => calls,
    held: () => held,
    async reserve(): Promise<MailSlot> {
      held += 1
      let open = true
      const release = () => {
        if (!open) return
        open = false
        held -= 1
      }
      return {
        release,
        async send(mail: OutgoingMail) {
          try {
            calls += 1
            const call = calls
            if (options.delayMs) await sleep(options.delayMs)
            const error = options.fail?.(call)
            if (error) throw error
            accepted.push(mail)
            return {}
          } finally {
            release()
          }
        },
      }
    },
  }
}

function deps(mailer: ReturnType<typeof recordingMailer>, overrides: Partial<SendDeps> = {}): SendDeps {
  return {
    store: createDeliveryStore(database.db),
    mailer,
    gate: openGate,
    clock: { now: () => new Date() },
    lockMs: 30_000,
    mailFrom: 'mail@fairlane.test',
    returnPath: { bounceDomain: TEST_BOUNCE_DOMAIN, secret: TEST_UNSUBSCRIBE_SECRETS[0].secret },
    signer: createSenderSigner({
      load: (input) => findSigningDomain(database.db, input),
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    }),
    messageIdFor: (id) => messageIdFor(id, 'fairlane.test'),
    ...overrides,
  }
}

async function seedOne(to = `u${Math.random().toString(36).slice(2)}@example.com`) {
  const [message] = await seedQueuedMessages(database.db, { tenantId, to: () => to, publish: false })
  if (!message) throw new Error('seed failed')
  return { messageId: message.id, tenantId, to }
}

async function row(messageId: string) {
  return readMessageWithClaim(database.db, messageId)
}

describe('sendMessage', () => {
  it('sends once when called twice, with the deterministic Message-ID', async () => {
    const job = await seedOne()
    const mailer = recordingMailer()
    expect((await sendMessage(job, deps(mailer))).kind).toBe('sent')
    expect(await sendMessage(job, deps(mailer))).toEqual({ kind: 'skipped', reason: 'already-sent' })
    expect(mailer.accepted).toHaveLength(1)
    expect(mailer.accepted[0]?.messageId).toBe(`<${job.messageId}@fairlane.test>`)
    expect(await row(job.messageId)).toMatchObject({ status: 'sent', attempts: 1, lockToken: null })
  })

  it('releases the claim on a transient failure so an immediate retry sends exactly once', async () => {
    const job = await seedOne()
    const mailer = recordingMailer({
      fail: (call) =>
        call === 1
          ? new TransientSendError({
              message: '451 4.7.1 try later',
              responseCode: 451,
              suppressRecipient: false,
            })
          : undefined,
    })
    await expect(sendMessage(job, deps(mailer))).rejects.toBeInstanceOf(TransientSendError)
    expect(await row(job.messageId)).toMatchObject({
      status: 'queued',
      lockToken: null,
      lockedUntil: null,
      lastError: '451 4.7.1 try later',
      lastErrorCode: 'deferred',
    })
    expect((await sendMessage(job, deps(mailer))).kind).toBe('sent')
    expect(mailer.calls()).toBe(2)
    expect(mailer.accepted).toHaveLength(1)
    expect(await row(job.messageId)).toMatchObject({ status: 'sent', attempts: 2 })
  })

  it('asks for the token once claimed and composed; refused, gives the claim back uncounted and sends nothing', async () => {
    const job = await seedOne()
    const mailer = recordingMailer()
    const seen: Array<{ status: string | undefined; attempts: number | undefined }> = []
    const refuse = async () => {
      const current = await row(job.messageId)
      seen.push({ status: current?.status, attempts: current?.attempts })
      return { ok: false as const, delayMs: 320 }
    }
    expect(await sendMessage(job, deps(mailer, { gate: { admit: refuse } }))).toEqual({
      kind: 'deferred',
      delayMs: 320,
    })
    // Asked while the row was claimed (sending, this attempt counted), then given back uncounted.
    expect(seen).toEqual([{ status: 'sending', attempts: 1 }])
    expect(mailer.calls()).toBe(0)
    expect(mailer.held()).toBe(0)
    expect(await row(job.messageId)).toMatchObject({
      status: 'queued',
      attempts: 0,
      lockToken: null,
      lockedUntil: null,
    })
    // With a token the same job sends at once: nothing is left locked by the deferral.
    expect((await sendMessage(job, deps(mailer, { gate: { admit: async () => ({ ok: true }) } }))).kind).toBe(
      'sent',
    )
    expect(await row(job.messageId)).toMatchObject({ status: 'sent', attempts: 1 })
  })

  it('spends no token on a message with nothing to send', async () => {
    const job = await seedOne()
    const mailer = recordingMailer()
    let asked = 0
    const admit = async () => {
      asked += 1
      return { ok: true as const }
    }
    expect((await sendMessage(job, deps(mailer, { gate: { admit } }))).kind).toBe('sent')
    expect(await sendMessage(job, deps(mailer, { gate: { admit } }))).toEqual({
      kind: 'skipped',
      reason: 'already-sent',
    })
    await claimMessage(database.db, { ...(await seedOne()), lockMs: 30_000 }).then(async (claim) => {
      if (!claim) throw new Error('expected a claim')
      await expect(
        sendMessage({ messageId: claim.id, tenantId }, deps(mailer, { gate: { admit } })),
      ).rejects.toBeInstanceOf(MessageLockedError)
    })
    expect(asked).toBe(1)
  })

  it('releases the claim when the bucket cannot be asked (Redis away), for the retry', async () => {
    const job = await seedOne()
    const mailer = recordingMailer()
    const down = async (): Promise<never> => {
      throw new Error('Connection is closed.')
    }
    await expect(sendMessage(job, deps(mailer, { gate: { admit: down } }))).rejects.toThrow(
      'Connection is closed.',
    )
    expect(mailer.calls()).toBe(0)
    expect(mailer.held()).toBe(0)
    expect(await row(job.messageId)).toMatchObject({ status: 'queued', lockToken: null })
  })

  it('marks the sends of one turn together, each only under its own live claim', async () => {
    const store = createDeliveryStore(database.db)
    const jobs = await Promise.all(Array.from({ length: 30 }, () => seedOne()))
    const claims = await Promise.all(jobs.map((job) => store.claim({ ...job, lockMs: 30_000 })))
    // A third are stale: a token that is not theirs (their claim was taken over).
    const asked = jobs.map((job, index) => ({
      ...job,
      lockToken:
        index % 3 === 0 ? '00000000-0000-4000-8000-000000000000' : (claims[index]?.lockToken as string),
    }))
    const marked = await Promise.all(asked.map((claim) => store.markSent(claim)))
    expect(marked).toEqual(jobs.map((_, index) => index % 3 !== 0))
    const statuses = await Promise.all(jobs.map(async (job) => (await row(job.messageId))?.status))
    expect(statuses).toEqual(jobs.map((_, index) => (index % 3 === 0 ? 'sending' : 'sent')))
    expect((await row(jobs[1]?.messageId as string))?.sentAt).toBeInstanceOf(Date)
    expect((await row(jobs[1]?.messageId as string))?.lockToken).toBeNull()
  })

  it('sends once under 20 concurrent calls; the others are refused or find it sent', async () => {
    const job = await seedOne()
    const mailer = recordingMailer({ delayMs: 100 })
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => sendMessage(job, deps(mailer))))
    const sent = results.filter((result) => result.status === 'fulfilled' && result.value.kind === 'sent')
    const others = results.filter((result) => !sent.includes(result))
    expect(sent).toHaveLength(1)
    for (const other of others) {
      if (other.status === 'rejected') expect(other.reason).toBeInstanceOf(MessageLockedError)
      else expect(other.value).toEqual({ kind: 'skipped', reason: 'already-sent' })
    }
    expect(mailer.accepted).toHaveLength(1)
    expect(await row(job.messageId)).toMatchObject({ status: 'sent', attempts: 1 })
  })

  it('tells a held claim apart, with the time left on its lock', async () => {
    const job = await seedOne()
    await claimMessage(database.db, { ...job, lockMs: 30_000 })
    const error = await sendMessage(job, deps(recordingMailer())).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(MessageLockedError)
    expect((error as MessageLockedError).retryInMs).toBeGreaterThan(25_000)
    expect((error as MessageLockedError).retryInMs).toBeLessThanOrEqual(30_000)
  })

  it('reclaims an expired lock, and the stale holder can no longer mark it sent', async () => {
    const job = await seedOne()
    const stale = await claimMessage(database.db, { ...job, lockMs: 30_000 })
    if (!stale) throw new Error('expected a claim')
    // The holder died mid-send: its lock runs out.
    await expireClaim(database.db, job.messageId)
    const mailer = recordingMailer()
    expect((await sendMessage(job, deps(mailer))).kind).toBe('sent')
    expect(mailer.accepted).toHaveLength(1)
    const after = await row(job.messageId)
    expect(after).toMatchObject({ status: 'sent', attempts: 2 })
    expect(await markMessageSent(database.db, { ...job, lockToken: stale.lockToken })).toBe(false)
    expect(await row(job.messageId)).toEqual(after)
  })

  it('changes nothing when marked sent with a stale token while another holds the claim', async () => {
    const job = await seedOne()
    const first = await claimMessage(database.db, { ...job, lockMs: 30_000 })
    await expireClaim(database.db, job.messageId)
    const second = await claimMessage(database.db, { ...job, lockMs: 30_000 })
    if (!first || !second) throw new Error('expected two claims')
    const before = await row(job.messageId)
    expect(await markMessageSent(database.db, { ...job, lockToken: first.lockToken })).toBe(false)
    expect(await row(job.messageId)).toEqual(before)
    expect(before).toMatchObject({ status: 'sending', lockToken: second.lockToken })
  })

  it('on 5.1.1 marks the row failed and suppresses the address; other mail to it is skipped', async () => {
    const job = await seedOne()
    const bounce = new PermanentSendError({
      message: 'Message failed: 550 5.1.1 no such user',
      responseCode: 550,
      enhancedCode: '5.1.1',
      suppressRecipient: true,
    })
    const mailer = recordingMailer({ fail: () => bounce })
    await expect(sendMessage(job, deps(mailer))).rejects.toBe(bounce)
    const failed = await row(job.messageId)
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, lockToken: null })
    expect(failed?.failedAt).toBeInstanceOf(Date)
    expect(failed?.lastError).toContain('550 5.1.1')
    const [suppression] = await database.db.select().from(suppressions).where(eq(suppressions.email, job.to))
    expect(suppression).toMatchObject({ tenantId, reason: 'hard-bounce', messageId: job.messageId })

    const later = await seedOne(job.to.toUpperCase())
    expect(await sendMessage(later, deps(recordingMailer()))).toEqual({
      kind: 'skipped',
      reason: 'suppressed',
    })
    expect(await row(later.messageId)).toMatchObject({ status: 'suppressed' })

    // An admin replay of the bounced message itself is deliberate: its own suppression does not block it.
    await database.db.update(messages).set({ status: 'queued' }).where(eq(messages.id, job.messageId))
    const replay = recordingMailer()
    expect((await sendMessage(job, deps(replay))).kind).toBe('sent')
    expect(replay.accepted).toHaveLength(1)
  })

  it("never lets one tenant's suppression block another tenant's mail to the same address", async () => {
    const to = `shared${Math.random().toString(36).slice(2)}@example.com`
    await database.db.insert(suppressions).values({ tenantId, email: to, reason: 'hard-bounce' })
    const otherTenant = await createTenant(database.db, 'Other')
    const [other] = await seedQueuedMessages(database.db, {
      tenantId: otherTenant,
      to: () => to,
      publish: false,
    })
    if (!other) throw new Error('seed failed')
    const mailer = recordingMailer()
    expect(await sendMessage({ messageId: other.id, tenantId: otherTenant }, deps(mailer))).toMatchObject({
      kind: 'sent',
    })
    expect(mailer.accepted).toHaveLength(1)
    const mine = await seedOne(to)
    expect(await sendMessage(mine, deps(recordingMailer()))).toEqual({
      kind: 'skipped',
      reason: 'suppressed',
    })
  })

  it('refuses campaign mail that has no rendered content, permanently and with a reason', async () => {
    const job = await seedOne()
    await database.db
      .update(messages)
      .set({ subject: null, html: null, text: null })
      .where(eq(messages.id, job.messageId))
    const mailer = recordingMailer()
    await expect(sendMessage(job, deps(mailer))).rejects.toBeInstanceOf(UndeliverableMessageError)
    expect(mailer.calls()).toBe(0)
    expect(await row(job.messageId)).toMatchObject({
      status: 'failed',
      lastError: expect.stringContaining('rendered'),
    })
  })

  it('finds nothing under another tenant and skips terminal rows', async () => {
    const job = await seedOne()
    const other = await createTenant(database.db, 'Globex')
    const mailer = recordingMailer()
    expect(await sendMessage({ ...job, tenantId: other }, deps(mailer))).toEqual({
      kind: 'skipped',
      reason: 'not-found',
    })
    await database.db.update(messages).set({ status: 'failed' }).where(eq(messages.id, job.messageId))
    expect(await sendMessage(job, deps(mailer))).toEqual({ kind: 'skipped', reason: 'terminal' })
    expect(mailer.calls()).toBe(0)
    expect(await row(job.messageId)).toMatchObject({ attempts: 0 })
  })

  it('keeps the claim on an unknown outcome: no resend inside the lock window, the same Message-ID after it', async () => {
    const job = await seedOne()
    const mailer = recordingMailer({
      fail: (call) =>
        call === 1 ? new OutcomeUnknownSendError('Connection closed unexpectedly') : undefined,
    })
    const lockMs = 1_500
    await expect(sendMessage(job, deps(mailer, { lockMs }))).rejects.toBeInstanceOf(OutcomeUnknownSendError)
    const kept = await row(job.messageId)
    expect(kept).toMatchObject({ status: 'sending', lastErrorCode: 'outcome_unknown' })
    expect(kept?.lockToken).not.toBeNull()
    expect(kept?.lastError).toContain('Connection closed unexpectedly')

    // Every retry inside the window is refused, without calling the mailer.
    await expect(sendMessage(job, deps(mailer, { lockMs }))).rejects.toBeInstanceOf(MessageLockedError)
    expect(mailer.calls()).toBe(1)

    const sent = await eventually(
      async () => {
        try {
          return await sendMessage(job, deps(mailer, { lockMs }))
        } catch (error) {
          if (error instanceof MessageLockedError) return undefined
          throw error
        }
      },
      { what: 'the claim to expire', timeoutMs: 10_000, intervalMs: 100 },
    )
    expect(sent.kind).toBe('sent')
    expect(mailer.calls()).toBe(2)
    expect(mailer.accepted[0]?.messageId).toBe(`<${job.messageId}@fairlane.test>`)
    expect(await row(job.messageId)).toMatchObject({ status: 'sent', attempts: 2 })
  })

  it('marks the message failed under outcome_unknown when the final attempt ends unknown', async () => {
    const job = await seedOne()
    const mailer = recordingMailer({ fail: () => new OutcomeUnknownSendError('read ECONNRESET') })
    await expect(sendMessage(job, deps(mailer), { final: true })).rejects.toBeInstanceOf(
      OutcomeUnknownSendError,
    )
    expect(await row(job.messageId)).toMatchObject({
      status: 'failed',
      lockToken: null,
      lastErrorCode: 'outcome_unknown',
    })
  })

  it('never resends a message the server accepted when marking it sent fails: the retry only records it', async () => {
    const job = await seedOne()
    const mailer = recordingMailer()
    const store = createDeliveryStore(database.db)
    let markAttempts = 0
    // PostgreSQL away for the mark only (the claim went through): every try of the mark fails.
    const unreachable = {
      ...store,
      markSent: async () => {
        markAttempts += 1
        throw new Error('write CONNECTION_CLOSED 127.0.0.1:5432')
      },
    }
    const error = await sendMessage(job, deps(mailer, { store: unreachable })).catch(
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(SendNotRecordedError)
    expect(markAttempts).toBe(4)
    const accepted = (error as SendNotRecordedError).acceptedLockToken
    expect(await row(job.messageId)).toMatchObject({ status: 'sending', lockToken: accepted })

    expect(await recordAcceptedSend({ ...job, lockToken: accepted }, { store })).toEqual({ kind: 'recorded' })
    expect(await row(job.messageId)).toMatchObject({ status: 'sent', lockToken: null })
    expect(mailer.calls()).toBe(1)
    expect(await recordAcceptedSend({ ...job, lockToken: accepted }, { store })).toEqual({
      kind: 'skipped',
      reason: 'already-sent',
    })
  })
})
