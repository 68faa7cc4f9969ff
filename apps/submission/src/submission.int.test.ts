import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import {
  apiKeys,
  messageContents,
  messageEvents,
  messages,
  outbox,
  tenants,
  tenantUsageDays,
} from '@fairlane/db'
import { eventually } from '@fairlane/testing'
import { and, asc, eq, inArray } from 'drizzle-orm'
import nodemailer from 'nodemailer'
import { beforeAll, describe, expect, it } from 'vitest'
import { createDomain, createKey, createTenant, setupSubmission } from './test-support/harness'
import { openSmtpSession } from './test-support/smtp-session'

/** SMTP submission end to end: a real client, the real server, PostgreSQL and Redis. */
const harness = setupSubmission()
let acme: string
let acmeKey: string
let globex: string
let globexKey: string
let initech: string
let initechKey: string

beforeAll(async () => {
  acme = await createTenant(harness.db, 'Acme')
  await createDomain(harness.db, acme, 'acme.example')
  acmeKey = (await createKey(harness.db, acme)).key
  globex = await createTenant(harness.db, 'Globex')
  await createDomain(harness.db, globex, 'globex.example')
  globexKey = (await createKey(harness.db, globex)).key
  // No sending domain of its own: the platform sender applies, as for the API.
  initech = await createTenant(harness.db, 'Initech')
  initechKey = (await createKey(harness.db, initech)).key
})

function transport(password: string, options: { secure?: boolean; authMethod?: string } = {}) {
  const port = options.secure ? harness.submission.tlsPort : harness.submission.port
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: options.secure ?? false,
    requireTLS: !options.secure,
    tls: { ca: harness.cert, servername: 'localhost' },
    auth: { user: 'anything', pass: password },
    ...(options.authMethod ? { authMethod: options.authMethod } : {}),
  })
}

function idsOf(response: string): string[] {
  return [...response.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)].map(
    (m) => m[0],
  )
}

async function rowsOf(ids: string[]) {
  return harness.db.select().from(messages).where(inArray(messages.id, ids)).orderBy(asc(messages.toAddress))
}

describe('accepting a submission', () => {
  it('takes nodemailer over STARTTLS: each RCPT its own message, 250 2.0.0 naming both ids, raw kept', async () => {
    const info = await transport(acmeKey).sendMail({
      from: '"Acme Billing" <billing@acme.example>',
      to: ['one@customer.example', 'two@customer.example'],
      subject: 'Your invoice — December',
      text: 'Hello\nthere',
      headers: { 'X-Fairlane-Lane': 'critical', 'X-Fairlane-Tags': 'invoice, december' },
      attachments: [{ filename: 'invoice.txt', content: 'total: 12 EUR' }],
    })
    expect(info.response).toMatch(/^250 2\.0\.0 queued as /)
    const ids = idsOf(info.response)
    expect(ids).toHaveLength(2)
    const rows = await rowsOf(ids)
    expect(rows.map((row) => row.toAddress)).toEqual(['one@customer.example', 'two@customer.example'])
    for (const row of rows) {
      expect(row).toMatchObject({
        tenantId: acme,
        status: 'queued',
        lane: 'critical',
        source: 'smtp',
        subject: 'Your invoice — December',
        html: null,
        text: null,
        fromAddress: '"Acme Billing" <billing@acme.example>',
        variables: { tags: ['invoice', 'december'] },
      })
      expect(row.sendingDomainId).not.toBeNull()
      expect(row.sizeBytes).toBeGreaterThan(100)
    }
    const contents = await harness.db
      .select()
      .from(messageContents)
      .where(inArray(messageContents.messageId, ids))
    expect(contents).toHaveLength(2)
    const raw = contents[0]?.raw.toString('latin1') ?? ''
    expect(raw).toContain('invoice.txt')
    expect(raw).not.toMatch(/x-fairlane/i)
    expect(raw).not.toMatch(/[^\r]\n/)
    expect(contents[0]?.tenantId).toBe(acme)
    const events = await harness.db.select().from(messageEvents).where(inArray(messageEvents.messageId, ids))
    expect(events.map((event) => event.type)).toEqual(['accepted', 'accepted'])
    const published = await harness.db.select().from(outbox).where(eq(outbox.tenantId, acme))
    const named = published.map((row) => (row.payload as { messageId: string }).messageId)
    expect(named).toEqual(expect.arrayContaining(ids))
  })

  it('takes AUTH LOGIN on the implicit TLS port', async () => {
    const info = await transport(acmeKey, { secure: true, authMethod: 'LOGIN' }).sendMail({
      from: 'news@acme.example',
      to: 'three@customer.example',
      subject: 'Implicit TLS',
      text: 'hi',
    })
    const [row] = await rowsOf(idsOf(info.response))
    expect(row).toMatchObject({ lane: 'default', source: 'smtp', variables: null })
  })

  it("takes Python's smtplib (STARTTLS, LOGIN, sendmail)", async () => {
    const script = [
      'import smtplib, ssl, sys',
      'ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE',
      's = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=10)',
      's.starttls(context=ctx)',
      's.login("app", sys.argv[2])',
      'msg = "From: Acme <py@acme.example>\\r\\nTo: py@customer.example\\r\\nSubject: from python\\r\\n\\r\\nhello\\r\\n"',
      'print(s.sendmail("py@acme.example", ["py@customer.example"], msg))',
      'code, text = s.noop()',
      's.quit()',
    ].join('\n')
    await promisify(execFile)('python3', ['-c', script, String(harness.submission.port), acmeKey])
    const rows = await harness.db.select().from(messages).where(eq(messages.toAddress, 'py@customer.example'))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ tenantId: acme, subject: 'from python', source: 'smtp' })
  })

  it('replays an Idempotency-Key per recipient: the same ids, no new rows', async () => {
    const mail = {
      from: 'billing@acme.example',
      to: ['idem-a@customer.example', 'idem-b@customer.example'],
      subject: 'Once',
      text: 'only once',
      messageId: '<fixed@acme.example>',
      date: new Date('2026-12-01T00:00:00Z'),
      headers: { 'Idempotency-Key': 'invoice-42' },
    }
    const first = idsOf((await transport(acmeKey).sendMail(mail)).response)
    const second = idsOf((await transport(acmeKey).sendMail(mail)).response)
    expect(second).toEqual(first)
    const rows = await harness.db
      .select()
      .from(messages)
      .where(inArray(messages.toAddress, ['idem-a@customer.example', 'idem-b@customer.example']))
    expect(rows.map((row) => row.idempotencyKey).sort()).toEqual([
      'invoice-42:idem-a@customer.example',
      'invoice-42:idem-b@customer.example',
    ])
  })

  it("counts each recipient in the tenant's usage and holds it to its daily quota (451 naming the quota)", async () => {
    const hooli = await createTenant(harness.db, 'Hooli')
    await createDomain(harness.db, hooli, 'hooli.example')
    await harness.db.update(tenants).set({ quotaDaily: 3 }).where(eq(tenants.id, hooli))
    const hooliKey = (await createKey(harness.db, hooli)).key
    const mail = (to: string[]) => ({ from: 'app@hooli.example', to, subject: 'Quota', text: 'q' })
    await transport(hooliKey).sendMail(mail(['q1@customer.example', 'q2@customer.example']))
    // Two more recipients do not fit in the one left: the whole message is refused, nothing written.
    await expect(
      transport(hooliKey).sendMail(mail(['q3@customer.example', 'q4@customer.example'])),
    ).rejects.toMatchObject({
      responseCode: 451,
      response: expect.stringMatching(/^451 4\.7\.1 over this tenant's quota: .*retry in \d+ s$/),
    })
    await transport(hooliKey).sendMail(mail(['q3@customer.example']))
    const usage = await harness.db.select().from(tenantUsageDays).where(eq(tenantUsageDays.tenantId, hooli))
    expect(usage).toMatchObject([{ lane: 'default', accepted: 3 }])
    expect(
      await harness.db.select({ id: messages.id }).from(messages).where(eq(messages.tenantId, hooli)),
    ).toHaveLength(3)
  })

  it('sends as the platform for a tenant without a verified domain', async () => {
    const info = await transport(initechKey).sendMail({
      from: 'app@initech.example',
      to: 'platform@customer.example',
      subject: 'Platform sender',
      text: 'hi',
    })
    const [row] = await rowsOf(idsOf(info.response))
    expect(row).toMatchObject({ tenantId: initech, fromAddress: null, sendingDomainId: null })
  })

  it('normalises bare LF line endings to CRLF and keeps 8-bit bytes as they are', async () => {
    const session = await openSmtpSession(harness.submission.tlsPort ?? 0, { tls: true, ca: harness.cert })
    expect((await session.login(acmeKey)).code).toBe(235)
    expect((await session.command('MAIL FROM:<lf@acme.example>')).code).toBe(250)
    expect((await session.command('RCPT TO:<lf@customer.example>')).code).toBe(250)
    expect((await session.command('DATA')).code).toBe(354)
    const body = Buffer.concat([
      Buffer.from('From: lf@acme.example\nSubject: bare LF\n\nline one\n', 'latin1'),
      Buffer.from('Grüße', 'utf8'),
      Buffer.from('\r\n.\r\n', 'latin1'),
    ])
    const reply = await session.raw(body)
    session.close()
    expect(reply.code).toBe(250)
    const [id] = idsOf(reply.text)
    const [content] = await harness.db
      .select()
      .from(messageContents)
      .where(eq(messageContents.messageId, id ?? ''))
    expect(content?.raw.toString('utf8')).toBe(
      'From: lf@acme.example\r\nSubject: bare LF\r\n\r\nline one\r\nGrüße\r\n',
    )
  })
})

describe('refusals', () => {
  it('refuses AUTH before STARTTLS (538), and a wrong key with 535 5.7.8', async () => {
    const plain = nodemailer.createTransport({
      host: '127.0.0.1',
      port: harness.submission.port,
      ignoreTLS: true,
      auth: { user: 'x', pass: acmeKey },
    })
    await expect(plain.verify()).rejects.toMatchObject({ responseCode: 538 })
    await expect(transport('fl_not-a-real-key-at-all-000000000').verify()).rejects.toMatchObject({
      responseCode: 535,
      response: expect.stringMatching(/^535 5\.7\.8 /),
    })
  })

  it('refuses a From on another tenant’s domain with 5.7.1 naming it, in the envelope and in the header', async () => {
    const envelope = transport(acmeKey).sendMail({
      from: 'ceo@globex.example',
      to: 'victim@customer.example',
      subject: 'x',
      text: 'x',
    })
    await expect(envelope).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/5\.7\.1 MAIL FROM ceo@globex\.example/),
    })
    const header = transport(acmeKey).sendMail({
      envelope: { from: 'billing@acme.example', to: ['victim@customer.example'] },
      from: 'ceo@globex.example',
      subject: 'x',
      text: 'x',
    })
    await expect(header).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/5\.7\.1 From ceo@globex\.example/),
    })
    const rows = await harness.db
      .select()
      .from(messages)
      .where(eq(messages.toAddress, 'victim@customer.example'))
    expect(rows).toEqual([])
    // And the other tenant itself may.
    await expect(
      transport(globexKey).sendMail({
        from: 'ceo@globex.example',
        to: 'ok@customer.example',
        subject: 'x',
        text: 'x',
      }),
    ).resolves.toMatchObject({ response: expect.stringMatching(/^250 /) })
  })

  it('holds a domain-restricted key to its domain', async () => {
    await createDomain(harness.db, acme, 'mail.acme.example')
    const restricted = (await createKey(harness.db, acme, { domain: 'acme.example' })).key
    await expect(
      transport(restricted).sendMail({
        from: 'x@mail.acme.example',
        to: 'r@customer.example',
        subject: 'x',
        text: 'x',
      }),
    ).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/5\.7\.1 .*only send from the domain acme\.example/),
    })
  })

  it('answers the 51st RCPT 452 4.5.3, DATA before RCPT 503, BDAT 502, oversize 552 5.3.4', async () => {
    const session = await openSmtpSession(harness.submission.tlsPort ?? 0, { tls: true, ca: harness.cert })
    expect((await session.login(acmeKey)).code).toBe(235)
    expect((await session.command('BDAT 10 LAST')).text).toMatch(/^5\.5\.1 BDAT/)
    expect((await session.command('MAIL FROM:<many@acme.example>')).code).toBe(250)
    expect((await session.command('DATA')).code).toBe(503)
    for (let index = 0; index < 50; index++) {
      expect((await session.command(`RCPT TO:<r${index}@customer.example>`)).code).toBe(250)
    }
    const over = await session.command('RCPT TO:<r50@customer.example>')
    expect(over).toMatchObject({ code: 452, text: expect.stringMatching(/^4\.5\.3 /) })
    expect((await session.command('RSET')).code).toBe(250)
    expect((await session.command('MAIL FROM:<big@acme.example>')).code).toBe(250)
    expect((await session.command('RCPT TO:<big@customer.example>')).code).toBe(250)
    expect((await session.command('DATA')).code).toBe(354)
    const big = `From: big@acme.example\r\nSubject: big\r\n\r\n${'x'.repeat(998)}\r\n`.repeat(70)
    const reply = await session.raw(`${big}.\r\n`)
    session.close()
    expect(reply).toMatchObject({ code: 552, text: expect.stringMatching(/^5\.3\.4 /) })
    const rows = await harness.db
      .select()
      .from(messages)
      .where(eq(messages.toAddress, 'big@customer.example'))
    expect(rows).toEqual([])
  })

  it('refuses the next MAIL FROM once the session’s key is revoked', async () => {
    const { key, id } = await createKey(harness.db, acme)
    const session = await openSmtpSession(harness.submission.tlsPort ?? 0, { tls: true, ca: harness.cert })
    expect((await session.login(key)).code).toBe(235)
    expect((await session.command('MAIL FROM:<rev@acme.example>')).code).toBe(250)
    expect((await session.command('RSET')).code).toBe(250)
    await harness.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, acme)))
    // The key row is cached for 200 ms in this harness (2 s in production).
    await eventually(async () => {
      const reply = await session.command('MAIL FROM:<rev@acme.example>')
      if (reply.code === 250) await session.command('RSET')
      expect(reply).toMatchObject({ code: 535, text: expect.stringMatching(/^5\.7\.8 .*revoked/) })
      return true
    })
    session.close()
  })
})
