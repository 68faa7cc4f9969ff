import { generateKeyPairSync } from 'node:crypto'
import { loadSigningKey, parseReturnPath, unsubscribeKey } from '@fairlane/core'
import { openGate, type SendDeps, sendMessage } from '@fairlane/core/delivery'
import { createDeliveryStore } from '@fairlane/db/queries/delivery'
import { notifyOutbox } from '@fairlane/db/queries/outbox'
import { findSigningDomain } from '@fairlane/db/queries/sender-signing'
import { closeLaneTransports, createLaneTransports, type LaneTransports, messageIdFor } from '@fairlane/mail'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment, startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readMessageWithClaim } from '../../testing/claims'
import {
  dnsResolverFor,
  failDomain,
  publishDkim,
  type SeededDomain,
  seedVerifiedDomain,
} from '../../testing/domains'
import {
  startTestPipeline,
  TEST_BOUNCE_DOMAIN,
  TEST_DKIM_ENCRYPTION_KEYS,
  TEST_SESSION_SECRET,
  TEST_UNSUBSCRIBE_SECRETS,
  type TestPipeline,
  testLogger,
} from '../../testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'
import { createCampaignRenderer } from '../campaigns/campaign-renderer'
import { createSmtpMailer } from '../lanes/smtp-mailer'
import { createSenderSigner } from './sender-signer'

/**
 * Mail leaves as the tenant: from its verified domain, DKIM-signed with that domain's key and
 * verified here by an independent verifier (mailauth) against the record published on a real DNS
 * server, with a VERP envelope sender; platform mail under the tenant's name; a domain that cannot
 * sign holds its mail. API-shaped rows → relay → lane worker → the real sink, all in this process.
 */
const test = setupTestEnvironment('sender-identity')
let sink: MailSink
let dns: TestDnsServer
let pipeline: TestPipeline
let tenantId: string
let domain: SeededDomain

const TENANT_NAME = 'Acme, "Best" Widgets'
const secrets = TEST_UNSUBSCRIBE_SECRETS.map((key) => key.secret)

beforeAll(async () => {
  sink = await startTestSink()
  dns = await startTestDnsServer()
  pipeline = await startTestPipeline(test, sink, { logger: testLogger(process.env.TEST_LOG_LEVEL) })
  tenantId = await createTenant(pipeline.database.db, TENANT_NAME)
  domain = await seedVerifiedDomain(pipeline.database.db, {
    tenantId,
    name: 'news-acme.example',
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

async function row(messageId: string) {
  return readMessageWithClaim(db(), messageId)
}

async function seedFrom(to: string, sender?: Parameters<typeof seedQueuedMessages>[1]['sender']) {
  const [message] = await seedQueuedMessages(db(), { tenantId, to: () => to, ...(sender ? { sender } : {}) })
  if (!message) throw new Error('seed failed')
  return message
}

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

async function verify(raw: Buffer) {
  return dkimVerify(raw, { resolver: dnsResolverFor(dns) })
}

/** The header names a signature covers (mailauth 4 returns them at run time; its typings omit them). */
function signedHeaders(signature: object | undefined): string[] {
  const keys = (signature as { signingHeaders?: { keys?: string } } | undefined)?.signingHeaders?.keys
  return keys?.toLowerCase().split(/:\s*/) ?? []
}

describe('mail from a verified domain', () => {
  it('is DKIM-signed for d=<domain> (mailauth: pass) and its envelope sender is its own VERP address', async () => {
    const to = unique('signed')
    const message = await seedFrom(to, {
      from: `"News Team" <news@${domain.name}>`,
      replyTo: `help@${domain.name}`,
      sendingDomainId: domain.id,
    })
    const { stored, raw } = await received(to)

    const { results } = await verify(raw)
    expect(results).toHaveLength(1)
    const [signature] = results
    expect(signature?.status.result).toBe('pass')
    expect(signature).toMatchObject({
      signingDomain: domain.name,
      selector: domain.selector,
      algo: 'rsa-sha256',
      format: 'relaxed/relaxed',
    })
    const signed = signedHeaders(signature)
    for (const header of ['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'reply-to']) {
      expect(signed).toContain(header)
    }

    expect(stored.headers.from).toBe(`News Team <news@${domain.name}>`)
    expect(stored.headers['reply-to']).toBe(`help@${domain.name}`)
    expect(stored.envelope.from).toMatch(new RegExp(`@${domain.returnPathHost.replaceAll('.', '\\.')}$`))
    expect(parseReturnPath(stored.envelope.from, { secrets })).toEqual({ messageId: message.id })
    await eventually(async () => (await row(message.id))?.status === 'sent', { what: 'row sent' })
  })

  it('holds mail of a domain that turned failed: status held with the reason, nothing at the sink', async () => {
    const failing = await seedVerifiedDomain(db(), {
      tenantId,
      name: 'failing-acme.example',
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    })
    await failDomain(db(), failing.id)
    const to = unique('held')
    const message = await seedFrom(to, { from: `news@${failing.name}`, sendingDomainId: failing.id })
    await eventually(async () => (await row(message.id))?.status === 'held', { what: 'row held' })
    expect(await row(message.id)).toMatchObject({
      lastErrorCode: 'sender_domain_unverified',
      attempts: 0,
      lockToken: null,
      sentAt: null,
    })
    expect((await row(message.id))?.lastError).toContain('failing-acme.example is failed')
    // Its job is over: no retry comes to send it later.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(sink.store.list({ to })).toHaveLength(0)
    expect((await row(message.id))?.status).toBe('held')
  })
})

describe('a domain that verifies again', () => {
  it('sends its released mail although the worker still caches the "hold" answer', async () => {
    const returning = await seedVerifiedDomain(db(), {
      tenantId,
      name: 'returning-acme.example',
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    })
    publishDkim(dns, returning)
    await failDomain(db(), returning.id)
    const first = unique('held-first')
    const held = await seedFrom(first, { from: `news@${returning.name}`, sendingDomainId: returning.id })
    await eventually(async () => (await row(held.id))?.status === 'held', { what: 'the first message held' })

    // What verifyDomain does, well inside the signer's 30 s: verified, and the held mail published
    // again. The worker's cached answer is still "hold"; the hold must not stick.
    await db().execute(sql`update sending_domains set status = 'verified', failure_reason = null
      where id = ${returning.id}`)
    await db().execute(sql`update messages set status = 'queued', generation = generation + 1,
      queued_at = now() where id = ${held.id}`)
    await db().execute(sql`insert into outbox (tenant_id, topic, payload)
      values (${tenantId}, 'message.publish', ${JSON.stringify({
        v: 1,
        messageId: held.id,
        tenantId,
        lane: held.lane,
        generation: 1,
      })}::jsonb)`)
    await notifyOutbox(db())

    const { raw } = await received(first)
    expect((await verify(raw)).results[0]?.status.result).toBe('pass')
    await eventually(async () => (await row(held.id))?.status === 'sent', {
      what: 'the released message sent',
    })
  })
})

describe('platform-sender mail', () => {
  it('leaves from MAIL_FROM under the tenant name, quoted, unsigned, with a VERP sender on BOUNCE_DOMAIN', async () => {
    const to = unique('platform')
    const message = await seedFrom(to)
    const { stored, raw } = await received(to)
    expect(stored.headers['dkim-signature']).toBeUndefined()
    expect((await verify(raw)).results.every((result) => result.status.result === 'none')).toBe(true)
    // One display name, however many commas and quotes the tenant's name has.
    expect(stored.headers.from).toBe('"Acme, \\"Best\\" Widgets" <mail@fairlane.test>')
    expect(stored.envelope.from).toMatch(new RegExp(`@${TEST_BOUNCE_DOMAIN.replaceAll('.', '\\.')}$`))
    expect(parseReturnPath(stored.envelope.from, { secrets })).toEqual({ messageId: message.id })
  })
})

/** The send use case over the real SMTP mailer and sink, for rows the pipeline's dispatch does not write. */
describe('sendMessage with the SMTP mailer', () => {
  let transports: LaneTransports
  beforeAll(() => {
    transports = createLaneTransports({
      smtpUrl: `smtp://127.0.0.1:${sink.smtpPort}`,
      timeoutMs: 2_000,
      connections: { critical: 1, default: 1, bulk: 2 },
    })
  })
  afterAll(() => closeLaneTransports(transports))

  const deps = (overrides: Partial<SendDeps> = {}): SendDeps => ({
    store: createDeliveryStore(db()),
    mailer: createSmtpMailer(transports.bulk, { deadlineMs: 5_000, connections: 2 }),
    gate: openGate,
    clock: { now: () => new Date() },
    lockMs: 30_000,
    mailFrom: 'mail@fairlane.test',
    returnPath: { bounceDomain: TEST_BOUNCE_DOMAIN, secret: secrets[0] ?? '' },
    signer: createSenderSigner({
      load: (input) => findSigningDomain(db(), input),
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    }),
    messageIdFor: (id) => messageIdFor(id, 'fairlane.test'),
    campaigns: createCampaignRenderer({
      db: db(),
      appUrl: 'http://127.0.0.1:3999',
      unsubscribeKey: unsubscribeKey({
        secrets: TEST_UNSUBSCRIBE_SECRETS,
        sessionSecret: TEST_SESSION_SECRET,
      }),
    }),
    ...overrides,
  })

  it('signs campaign mail covering List-Unsubscribe and List-Unsubscribe-Post', async () => {
    // Scheduled for tomorrow: the pipeline's dispatcher must not write this contact's row first.
    const sendAt = new Date(Date.now() + 86_400_000)
    const { campaignId, prefix } = await seedCampaign(db(), { tenantId, contacts: 1, sendAt })
    const to = `${prefix}1@example.com`
    // What dispatch writes for a campaign with a from on the domain (the from is copied to the row).
    const [message] = await db().execute<{ id: string }>(sql`
      insert into messages (tenant_id, campaign_id, contact_id, lane, status, to_address, from_address, sending_domain_id)
      select ${tenantId}, ${campaignId}, c.id, 'bulk', 'queued', c.email, ${`"Acme News" <news@${domain.name}>`}, ${domain.id}
      from contacts c where c.tenant_id = ${tenantId} and c.email = ${to}
      returning id`)
    if (!message) throw new Error('campaign message insert returned nothing')
    expect((await sendMessage({ messageId: message.id, tenantId }, deps())).kind).toBe('sent')

    const { stored, raw } = await received(to)
    expect(stored.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    const [signature] = (await verify(raw)).results
    expect(signature?.status.result).toBe('pass')
    expect(signature?.signingDomain).toBe(domain.name)
    const signed = signedHeaders(signature)
    expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'from']))
  })

  it('holds, never sends unsigned, mail whose domain key cannot be decrypted', async () => {
    const broken = await seedVerifiedDomain(db(), {
      tenantId,
      name: 'broken-key.example',
      // Encrypted under a key the worker does not list.
      keys: [{ kid: 'gone', key: Buffer.alloc(32, 9) }],
    })
    const to = unique('broken')
    const message = await seedFrom(to, { from: `news@${broken.name}`, sendingDomainId: broken.id })
    await eventually(async () => (await row(message.id))?.status === 'held', { what: 'row held' })
    expect(await row(message.id)).toMatchObject({ lastErrorCode: 'signing_failed', attempts: 0 })
    expect((await row(message.id))?.lastError).toContain('could not be loaded')
    expect(sink.store.list({ to })).toHaveLength(0)
  })

  it('holds mail whose From is on a domain that was deleted (its reference set null)', async () => {
    const [message] = await seedQueuedMessages(db(), {
      tenantId,
      to: () => unique('orphan'),
      publish: false,
      sender: { from: 'news@deleted.example', sendingDomainId: null },
    })
    if (!message) throw new Error('seed failed')
    const outcome = await sendMessage({ messageId: message.id, tenantId }, deps())
    expect(outcome).toEqual({ kind: 'skipped', reason: 'held' })
    expect(await row(message.id)).toMatchObject({ status: 'held', lastErrorCode: 'sender_domain_unverified' })
    expect(sink.store.list({ to: message.toAddress })).toHaveLength(0)
  })

  it('refuses to send when the signer leaves a message unsigned: held (signing_failed), nothing at the sink', async () => {
    // A key rsa-sha256 cannot sign with: the signer refuses it, and the mail must be held, not sent
    // unsigned (nodemailer's own signer would have returned no signature and sent it as it was).
    const { privateKey } = generateKeyPairSync('ed25519')
    const unsigning = await seedVerifiedDomain(db(), {
      tenantId,
      name: 'unsigning.example',
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    })
    const to = unique('unsigned')
    const [message] = await seedQueuedMessages(db(), {
      tenantId,
      to: () => to,
      publish: false,
      sender: { from: `news@${unsigning.name}`, sendingDomainId: unsigning.id },
    })
    if (!message) throw new Error('seed failed')
    const outcome = await sendMessage(
      { messageId: message.id, tenantId },
      deps({
        signer: {
          signingFor: async () => ({
            kind: 'sign',
            domainName: unsigning.name,
            selector: unsigning.selector,
            privateKey,
            returnPathHost: unsigning.returnPathHost,
          }),
        },
      }),
    )
    expect(outcome).toEqual({ kind: 'skipped', reason: 'held' })
    expect(await row(message.id)).toMatchObject({ status: 'held', lastErrorCode: 'signing_failed' })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(sink.store.list({ to })).toHaveLength(0)
    // The pool goes on sending: the refused message closed only its own connection.
    const [next] = await seedQueuedMessages(db(), { tenantId, to: () => unique('after'), publish: false })
    if (!next) throw new Error('seed failed')
    expect((await sendMessage({ messageId: next.id, tenantId }, deps())).kind).toBe('sent')
  })
})

describe('the signer cache', () => {
  it('decrypts a domain key once for many messages, and again after the TTL', async () => {
    let decrypts = 0
    let loads = 0
    let now = 1_000
    const signer = createSenderSigner({
      load: (input) => {
        loads += 1
        return findSigningDomain(db(), input)
      },
      keys: TEST_DKIM_ENCRYPTION_KEYS,
      now: () => now,
      loadKey: (stored, keys) => {
        decrypts += 1
        return loadSigningKey(stored, keys)
      },
    })
    const input = { tenantId, domainId: domain.id }
    const answers = await Promise.all(Array.from({ length: 50 }, () => signer.signingFor(input)))
    for (let i = 0; i < 50; i++) answers.push(await signer.signingFor(input))
    expect(answers.every((answer) => answer.kind === 'sign')).toBe(true)
    expect(new Set(answers.map((answer) => answer.kind === 'sign' && answer.privateKey)).size).toBe(1)
    expect({ loads, decrypts }).toEqual({ loads: 1, decrypts: 1 })
    now += 30_001
    await signer.signingFor(input)
    expect({ loads, decrypts }).toEqual({ loads: 2, decrypts: 2 })
  })

  it('caches a hold too, and never answers one tenant for another tenant’s domain', async () => {
    let loads = 0
    const signer = createSenderSigner({
      load: (input) => {
        loads += 1
        return findSigningDomain(db(), input)
      },
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    })
    const other = await createTenant(db(), 'Other')
    const foreign = await signer.signingFor({ tenantId: other, domainId: domain.id })
    expect(foreign).toMatchObject({ kind: 'hold', code: 'sender_domain_unverified' })
    await signer.signingFor({ tenantId: other, domainId: domain.id })
    expect(loads).toBe(1)
    expect((await signer.signingFor({ tenantId, domainId: domain.id })).kind).toBe('sign')
  })

  it('forgets the oldest domains past its size', async () => {
    let loads = 0
    const signer = createSenderSigner({
      load: async () => {
        loads += 1
        return undefined
      },
      keys: TEST_DKIM_ENCRYPTION_KEYS,
      maxEntries: 2,
    })
    for (const id of ['a', 'b', 'c', 'a']) await signer.signingFor({ tenantId, domainId: id })
    expect(loads).toBe(4)
  })
})
