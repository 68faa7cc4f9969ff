import { messages } from '@fairlane/db'
import { eq } from 'drizzle-orm'
import nodemailer from 'nodemailer'
import { beforeAll, describe, expect, it } from 'vitest'
import { createDomain, createKey, createTenant, setupSubmission } from './test-support/harness'
import { openSmtpSession, type SmtpSession } from './test-support/smtp-session'

/**
 * The limits: the tenant's plan (rate 1/s, burst 1, a 1 s horizon: 2 mails fit in the accept bucket),
 * 3 connections per client address, 3 failed logins per address.
 */
const harness = setupSubmission({
  plan: { ratePerSec: 1, burst: 1 },
  limits: { maxClientsPerAddress: 3 },
  authThrottle: { maxFailures: 3, windowMs: 60_000 },
})
let acmeKey: string
let globexKey: string

beforeAll(async () => {
  const acme = await createTenant(harness.db, 'Acme')
  await createDomain(harness.db, acme, 'acme.example')
  acmeKey = (await createKey(harness.db, acme)).key
  const globex = await createTenant(harness.db, 'Globex')
  await createDomain(harness.db, globex, 'globex.example')
  globexKey = (await createKey(harness.db, globex)).key
})

function transport(password: string) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: harness.submission.port,
    requireTLS: true,
    tls: { ca: harness.cert, servername: 'localhost' },
    auth: { user: 'app', pass: password },
  })
}

const mail = (to: string) => ({ from: 'billing@acme.example', to, subject: 'plan', text: 'x' })

describe('the plan', () => {
  it('answers 451 4.7.1 "retry in N s" past the plan, writes nothing then, and takes the retry', async () => {
    const sender = transport(acmeKey)
    await sender.sendMail(mail('p1@customer.example'))
    await sender.sendMail(mail('p2@customer.example'))
    const refused = sender.sendMail(mail('p3@customer.example'))
    await expect(refused).rejects.toMatchObject({
      responseCode: 451,
      response: expect.stringMatching(/^451 4\.7\.1 .*retry in \d+ s$/),
    })
    expect(
      await harness.db.select().from(messages).where(eq(messages.toAddress, 'p3@customer.example')),
    ).toEqual([])
    // Another tenant's plan is its own.
    await expect(
      transport(globexKey).sendMail({ ...mail('g@customer.example'), from: 'x@globex.example' }),
    ).resolves.toMatchObject({ response: expect.stringMatching(/^250 /) })
    // The bucket refills at 1/s: a client retrying as told gets through, and nothing is lost.
    const seconds = Number(
      /retry in (\d+) s/.exec(String((await refused.catch((e: Error) => e)).message))?.[1] ?? 1,
    )
    const deadline = Date.now() + 10_000
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
      const retried = await sender.sendMail(mail('p3@customer.example')).catch((error: Error) => error)
      if (!(retried instanceof Error)) break
      if (Date.now() > deadline) throw retried
    }
    expect(
      await harness.db.select().from(messages).where(eq(messages.toAddress, 'p3@customer.example')),
    ).toHaveLength(1)
  })
})

describe('per client address', () => {
  it('answers the connection past the cap 421 4.7.0, and takes one again once another closes', async () => {
    const open: SmtpSession[] = []
    for (let index = 0; index < 3; index++) {
      const session = await openSmtpSession(harness.submission.port)
      expect(session.greeting.code).toBe(220)
      open.push(session)
    }
    const extra = await openSmtpSession(harness.submission.port)
    expect(extra.greeting).toMatchObject({
      code: 421,
      text: expect.stringMatching(/^4\.7\.0 too many connections/),
    })
    extra.close()
    open.pop()?.close()
    // The close is seen by the server a moment later: poll with a deadline.
    const deadline = Date.now() + 5_000
    let again = await openSmtpSession(harness.submission.port)
    while (again.greeting.code !== 220 && Date.now() < deadline) {
      again.close()
      await new Promise((resolve) => setTimeout(resolve, 50))
      again = await openSmtpSession(harness.submission.port)
    }
    expect(again.greeting.code).toBe(220)
    again.close()
    for (const session of open) session.close()
  })

  it('refuses logins with 454 4.7.0 after 3 failures from one address, even with a good key', async () => {
    const session = await openSmtpSession(harness.submission.tlsPort ?? 0, { tls: true, ca: harness.cert })
    for (let index = 0; index < 3; index++) {
      const reply = await session.login(`fl_wrong-key-${index}-aaaaaaaaaaaaaaaaaaaaaaaa`)
      expect(reply).toMatchObject({ code: 535, text: expect.stringMatching(/^5\.7\.8 /) })
    }
    const blocked = await session.login(acmeKey)
    session.close()
    expect(blocked).toMatchObject({
      code: 454,
      text: expect.stringMatching(/^4\.7\.0 too many failed logins.*try again in \d+ s/),
    })
  })
})
