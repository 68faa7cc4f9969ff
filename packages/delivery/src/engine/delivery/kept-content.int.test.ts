import { MESSAGE_PUBLISH_TOPIC, parseReturnPath } from '@fairlane/core'
import { acceptMessage } from '@fairlane/core/accept'
import { messageAttachments, messageContents, messages, outbox } from '@fairlane/db'
import { createAcceptStore } from '@fairlane/db/queries/accept-message'
import { notifyOutbox } from '@fairlane/db/queries/outbox'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { messageIdFor } from '@fairlane/mail'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment, startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import { eq } from 'drizzle-orm'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { simpleParser } from 'mailparser'
import MailComposer from 'nodemailer/lib/mail-composer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dnsResolverFor, publishDkim, type SeededDomain, seedVerifiedDomain } from '../../testing/domains'
import {
  startTestPipeline,
  TEST_DKIM_ENCRYPTION_KEYS,
  TEST_UNSUBSCRIBE_SECRETS,
  type TestPipeline,
  testLogger,
} from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/**
 * Content kept beside the row leaves intact: a message submitted over SMTP (a `message_contents` row,
 * written here as the submission server writes it) goes as its own bytes with our Message-ID, headers,
 * VERP envelope and DKIM signature; API mail's attachments become MIME parts, inline ones by cid.
 * Rows → relay → lane worker → the real sink, all in this process.
 */
const test = setupTestEnvironment('kept-content')
let sink: MailSink
let dns: TestDnsServer
let pipeline: TestPipeline
let tenantId: string
let domain: SeededDomain

const secrets = TEST_UNSUBSCRIBE_SECRETS.map((key) => key.secret)
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 0xa7), Buffer.from('\n%%EOF\n')])
// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

beforeAll(async () => {
  sink = await startTestSink()
  dns = await startTestDnsServer()
  pipeline = await startTestPipeline(test, sink, { logger: testLogger(process.env.TEST_LOG_LEVEL) })
  tenantId = await createTenant(pipeline.database.db, 'Acme')
  domain = await seedVerifiedDomain(pipeline.database.db, {
    tenantId,
    name: 'mail-acme.example',
    keys: TEST_DKIM_ENCRYPTION_KEYS,
  })
  publishDkim(dns, domain)
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
  await dns?.close()
})

const db = () => pipeline.database.db
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`

/** The one message at the sink for `to`, with its raw bytes as the sink's HTTP API serves them. */
async function received(to: string) {
  const [stored] = await eventually(() => sink.store.list({ to }).length === 1 && sink.store.list({ to }), {
    what: `the mail to ${to} at the sink`,
  })
  if (!stored) throw new Error('no mail')
  const response = await fetch(`http://127.0.0.1:${sink.httpPort}/messages/${stored.id}/raw`)
  expect(response.status).toBe(200)
  return { stored, raw: Buffer.from(await response.arrayBuffer()) }
}

function compose(options: ConstructorParameters<typeof MailComposer>[0]): Promise<Buffer> {
  return new MailComposer(options).compile().build()
}

/** As the submission server writes it: the row (`source = 'smtp'`, no html/text), the MIME, the outbox event. */
async function submit(input: { to: string; raw: Buffer; subject: string; signed: boolean }): Promise<string> {
  return db().transaction(async (tx) => {
    const [row] = await tx
      .insert(messages)
      .values({
        tenantId,
        lane: 'default',
        status: 'queued',
        source: 'smtp',
        toAddress: input.to,
        subject: input.subject,
        sizeBytes: input.raw.byteLength,
        queuedAt: new Date(),
        ...(input.signed ? { fromAddress: `billing@${domain.name}`, sendingDomainId: domain.id } : {}),
      })
      .returning({ id: messages.id })
    if (!row) throw new Error('no message row')
    await tx.insert(messageContents).values({ messageId: row.id, tenantId, raw: input.raw })
    await tx.insert(outbox).values({
      tenantId,
      topic: MESSAGE_PUBLISH_TOPIC,
      payload: { v: 1, messageId: row.id, tenantId, lane: 'default', generation: 0 },
    })
    await notifyOutbox(tx)
    return row.id
  })
}

async function status(messageId: string) {
  const [row] = await db()
    .select({ status: messages.status })
    .from(messages)
    .where(eq(messages.id, messageId))
  return row?.status
}

describe('a message submitted over SMTP', () => {
  it('leaves as submitted: attachment intact, Message-ID ours, Bcc and Return-Path gone, DKIM valid', async () => {
    const to = unique('smtp')
    const cc = unique('smtp-cc')
    const raw = await compose({
      from: `"Billing" <billing@${domain.name}>`,
      to,
      cc,
      bcc: 'secret-copy@example.com',
      subject: 'Invoice 42',
      messageId: '<client-chosen@erp.local>',
      text: 'Your invoice is attached.',
      html: '<p>Your invoice is attached.</p>',
      headers: { 'Return-Path': '<bounces@erp.local>', 'X-Fairlane-Lane': 'default', 'X-Custom': 'kept' },
      attachments: [{ filename: 'invoice-42.pdf', contentType: 'application/pdf', content: PDF }],
    })
    const id = await submit({ to, raw, subject: 'Invoice 42', signed: true })
    const { stored, raw: arrived } = await received(to)

    // The envelope: our VERP return path on the domain's bounce host, to the row's recipient only.
    expect(parseReturnPath(stored.envelope.from, { secrets })).toEqual({ messageId: id })
    expect(stored.envelope.from.endsWith(`@${domain.returnPathHost}`)).toBe(true)
    expect(stored.envelope.to).toEqual([to])
    expect(sink.store.list({ to: cc })).toHaveLength(0)

    const parsed = await simpleParser(arrived)
    expect(parsed.messageId).toBe(messageIdFor(id, 'fairlane.test'))
    expect(parsed.headers.get('auto-submitted')).toBe('auto-generated')
    expect(parsed.headers.get('x-custom')).toBe('kept')
    expect(parsed.headers.has('bcc')).toBe(false)
    expect(parsed.headers.has('x-fairlane-lane')).toBe(false)
    expect(arrived.toString('latin1')).not.toMatch(/client-chosen@erp\.local|secret-copy@|bounces@erp\.local/)
    expect(parsed.subject).toBe('Invoice 42')
    expect(parsed.text?.trim()).toBe('Your invoice is attached.')
    const [pdf] = parsed.attachments
    expect(parsed.attachments).toHaveLength(1)
    expect(pdf?.filename).toBe('invoice-42.pdf')
    expect(pdf?.contentType).toBe('application/pdf')
    expect(pdf?.content.equals(PDF)).toBe(true)

    const { results } = await dkimVerify(arrived, { resolver: dnsResolverFor(dns) })
    expect(results).toHaveLength(1)
    expect(results[0]?.status.result).toBe('pass')
    expect(results[0]?.signingDomain).toBe(domain.name)
    await eventually(async () => (await status(id)) === 'sent', { what: 'row sent' })
  })

  it('signs a submission written with bare LF line ends so that the signature verifies as received', async () => {
    const to = unique('smtp-lf')
    const raw = Buffer.from(
      [`From: billing@${domain.name}`, `To: ${to}`, 'Subject: Bare LF', '', 'line one', 'line two', ''].join(
        '\n',
      ),
    )
    const id = await submit({ to, raw, subject: 'Bare LF', signed: true })
    const { raw: arrived } = await received(to)
    const parsed = await simpleParser(arrived)
    expect(parsed.messageId).toBe(messageIdFor(id, 'fairlane.test'))
    expect(parsed.text?.trim()).toBe('line one\nline two')
    const { results } = await dkimVerify(arrived, { resolver: dnsResolverFor(dns) })
    expect(results[0]?.status.result).toBe('pass')
  })

  it('fails as undeliverable, sending nothing, when a submitted message has no MIME kept (and no body)', async () => {
    const to = unique('smtp-gone')
    const raw = await compose({ from: `billing@${domain.name}`, to, subject: 'Gone', text: 'x' })
    const id = await db().transaction(async (tx) => {
      const [row] = await tx
        .insert(messages)
        .values({
          tenantId,
          lane: 'default',
          status: 'queued',
          source: 'smtp',
          toAddress: to,
          subject: 'Gone',
          queuedAt: new Date(),
        })
        .returning({ id: messages.id })
      if (!row) throw new Error('no message row')
      return row.id
    })
    expect(raw.byteLength).toBeGreaterThan(0)
    // No html/text and no content row: nothing to send from.
    await db()
      .insert(outbox)
      .values({
        tenantId,
        topic: MESSAGE_PUBLISH_TOPIC,
        payload: { v: 1, messageId: id, tenantId, lane: 'default', generation: 0 },
      })
    await notifyOutbox(db())
    await eventually(async () => (await status(id)) === 'failed', { what: 'row failed' })
    expect(sink.store.list({ to })).toHaveLength(0)
  })
})

describe('API mail with attachments', () => {
  it('carries a PDF as an attachment and an inline image by cid, signed', async () => {
    const to = unique('api')
    const result = await acceptMessage(
      {
        tenantId,
        idempotencyKey: null,
        defaultSender: { from: null, replyTo: null },
        body: {
          to,
          from: `billing@${domain.name}`,
          subject: 'Your invoice',
          html: '<p><img src="cid:logo@acme"> Your invoice is attached.</p>',
          text: 'Your invoice is attached.',
          attachments: [
            { filename: 'invoice.pdf', contentType: 'application/pdf', content: PDF.toString('base64') },
            {
              filename: 'logo.png',
              contentType: 'image/png',
              content: PNG.toString('base64'),
              contentId: 'logo@acme',
            },
          ],
        },
      },
      {
        store: createAcceptStore(db()),
        renderer: {
          async render({ content }) {
            if (content.kind !== 'custom') throw new Error('custom content only in this test')
            return {
              ok: true,
              message: {
                subject: content.subject,
                html: content.html ?? null,
                text: content.text ?? '',
                template: null,
                variables: null,
              },
            }
          },
        },
        recipientLimiter: { consume: async () => ({ allowed: true }) },
        senderDomains: createSenderDomains(db()),
        clock: { now: () => new Date() },
      },
    )
    const [row] = await db()
      .select({ sizeBytes: messages.sizeBytes })
      .from(messages)
      .where(eq(messages.id, result.id))
    const textBytes = Buffer.byteLength(
      'Your invoice<p><img src="cid:logo@acme"> Your invoice is attached.</p>Your invoice is attached.',
    )
    expect(row?.sizeBytes).toBe(textBytes + PDF.byteLength + PNG.byteLength)
    const kept = await db()
      .select({ position: messageAttachments.position, filename: messageAttachments.filename })
      .from(messageAttachments)
      .where(eq(messageAttachments.messageId, result.id))
    expect(kept.sort((a, b) => a.position - b.position).map((a) => a.filename)).toEqual([
      'invoice.pdf',
      'logo.png',
    ])

    const { raw } = await received(to)
    const parsed = await simpleParser(raw)
    // MIME order: the inline image inside multipart/related, then the PDF beside it.
    const parts = new Map(parsed.attachments.map((part) => [part.filename, part]))
    expect([...parts.keys()].sort()).toEqual(['invoice.pdf', 'logo.png'])
    expect(parts.get('invoice.pdf')).toMatchObject({
      contentType: 'application/pdf',
      contentDisposition: 'attachment',
    })
    expect(parts.get('logo.png')).toMatchObject({
      contentType: 'image/png',
      contentDisposition: 'inline',
      cid: 'logo@acme',
    })
    expect(parts.get('invoice.pdf')?.content.equals(PDF)).toBe(true)
    expect(parts.get('logo.png')?.content.equals(PNG)).toBe(true)
    // The inline image sits beside the HTML (multipart/related); the PDF beside both (multipart/mixed).
    expect(raw.toString('latin1')).toMatch(/Content-Type: multipart\/related/i)
    expect(raw.toString('latin1')).toMatch(/Content-Type: multipart\/mixed/i)
    const { results } = await dkimVerify(raw, { resolver: dnsResolverFor(dns) })
    expect(results[0]?.status.result).toBe('pass')
    await eventually(async () => (await status(result.id)) === 'sent', { what: 'row sent' })
  })
})
