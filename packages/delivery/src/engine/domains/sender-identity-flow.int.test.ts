import { addDomain, type DomainView, parseReturnPath, rotateDkim, verifyDomain } from '@fairlane/core'
import { messages } from '@fairlane/db'
import { createDomainStore } from '@fairlane/db/queries/sending-domains'
import { createDnsLookup } from '@fairlane/mail/dns'
import type { MailSink } from '@fairlane/mailsink/sink'
import { startMailSink } from '@fairlane/mailsink/sink'
import {
  eventually,
  publishDomainRecords,
  setupTestEnvironment,
  startTestDnsServer,
  type TestDnsServer,
} from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  startTestPipeline,
  TEST_DKIM_ENCRYPTION_KEYS,
  TEST_UNSUBSCRIBE_SECRETS,
  type TestPipeline,
} from '../../testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages } from '../../testing/seed'

/**
 * The issue's whole story with every real part: a domain added through the use cases, its records
 * published on a real DNS server and verified, an OTP and a campaign sent from `news@<domain>` by
 * the worker, and the mail sink — resolving through the same DNS server — judging each signature
 * against the record the tenant was told to publish. Then the DKIM record disappears (two checks:
 * failed, new mail held), comes back (held mail released), and the key rotates (old selector until
 * the new record verifies, the new one after; every signature passes).
 */
const env = setupTestEnvironment('sender-identity-flow')
const RETURN_PATH_HOST = 'bounces.fairlane.test'
let sink: MailSink
let dns: TestDnsServer
let pipeline: TestPipeline
let tenantId: string

beforeAll(async () => {
  dns = await startTestDnsServer()
  sink = await startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    maxMessages: 10_000,
    dnsServers: [dns.address],
    logger: pino({ level: 'silent' }),
  })
  // The signer's cache is what delays a domain's change in the worker; short here so the test sees
  // each change within a poll, as production sees it within SENDER_SIGNER_TTL_MS.
  pipeline = await startTestPipeline(env, sink, {
    senderSignerTtlMs: 50,
    domains: { returnPathHost: RETURN_PATH_HOST, dnsServers: [dns.address] },
  })
  tenantId = await createTenant(pipeline.database.db, 'Flow Shop')
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
  await dns?.close()
})

const db = () => pipeline.database.db
const domainDeps = () => ({
  store: createDomainStore(db()),
  dns: createDnsLookup({ servers: [dns.address] }),
  clock: { now: () => new Date() },
  settings: { returnPathHost: RETURN_PATH_HOST },
  encryptionKeys: TEST_DKIM_ENCRYPTION_KEYS,
  maxDomains: 50,
})
const verify = (domain: DomainView) => verifyDomain({ tenantId, domainId: domain.id }, domainDeps())
const recipient = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.net`
const record = (domain: DomainView, purpose: string) =>
  domain.records.find((entry) => entry.purpose === purpose)

interface SinkMessage {
  id: string
  from: string
  to: string[]
  envelope: { from: string; to: string[] }
  headers: Record<string, string>
  auth: { dkim: string; dkimDomain?: string; dkimSelector?: string; dkimReason?: string }
}

/** The mail for `to` as the sink's HTTP API answers it, once its DKIM verdict is in. */
async function receivedBy(to: string): Promise<SinkMessage> {
  return eventually(
    async () => {
      const response = await fetch(`http://127.0.0.1:${sink.httpPort}/messages?to=${encodeURIComponent(to)}`)
      const found = (await response.json()) as SinkMessage[]
      return found.length === 1 ? found[0] : undefined
    },
    { timeoutMs: 20_000, what: `the mail to ${to} at the sink` },
  )
}

async function sendOtp(domain: DomainView, to: string) {
  const [message] = await seedQueuedMessages(db(), {
    tenantId,
    lane: 'critical',
    to: () => to,
    // As accept writes a request with `from: "Flow Shop <news@…>"` on a verified domain.
    sender: { from: `"Flow Shop" <news@${domain.name}>`, sendingDomainId: domain.id },
  })
  if (!message) throw new Error('no message seeded')
  return message
}

async function statusOf(messageId: string) {
  const [row] = await db()
    .select({ status: messages.status, code: messages.lastErrorCode })
    .from(messages)
    .where(eq(messages.id, messageId))
  return row
}

it('adds, verifies, signs, holds, releases and rotates — every signature passing at the sink', async () => {
  // Added: every record pending until published.
  const added = await addDomain({ tenantId, name: `flow-shop-${Date.now().toString(36)}.com` }, domainDeps())
  expect(added.status).toBe('pending')
  const unpublished = await verify(added)
  expect(unpublished.status).toBe('pending')
  expect(record(unpublished, 'dkim')?.status).toBe('pending')
  expect(record(unpublished, 'return-path')?.status).toBe('pending')

  publishDomainRecords(dns, added)
  const verified = await verify(added)
  expect(verified.status).toBe('verified')
  const firstSelector = record(verified, 'dkim')?.selector
  expect(firstSelector).toBeTruthy()

  // An OTP from news@<domain>: signed for d=<domain>, the envelope sender its own VERP address.
  const otpTo = recipient('otp')
  const otp = await sendOtp(verified, otpTo)
  const otpMail = await receivedBy(otpTo)
  expect(otpMail.auth).toMatchObject({ dkim: 'pass', dkimDomain: verified.name, dkimSelector: firstSelector })
  expect(otpMail.headers.from).toContain(`news@${verified.name}`)
  expect(otpMail.envelope.from.endsWith(`@${record(verified, 'return-path')?.name}`)).toBe(true)
  const secrets = TEST_UNSUBSCRIBE_SECRETS.map((key) => key.secret)
  expect(parseReturnPath(otpMail.envelope.from, { secrets })).toEqual({ messageId: otp.id })

  // A campaign from news@<domain>: dispatch copies the campaign's sender to every message.
  // Seeded for tomorrow and made due with its sender in one statement: dispatch never sees it without.
  const tomorrow = new Date(Date.now() + 86_400_000)
  const campaign = await seedCampaign(db(), {
    tenantId,
    contacts: 3,
    domain: 'example.org',
    sendAt: tomorrow,
  })
  await db().execute(
    sql`update campaigns set from_address = ${`"Flow Shop News" <news@${verified.name}>`}, send_at = now()
      where id = ${campaign.campaignId}`,
  )
  const campaignMail = await Promise.all(
    [1, 2, 3].map((index) => receivedBy(`${campaign.prefix}${index}@example.org`)),
  )
  for (const mail of campaignMail) {
    expect(mail.auth).toMatchObject({ dkim: 'pass', dkimDomain: verified.name })
    expect(mail.headers.from).toContain(`news@${verified.name}`)
    expect(mail.headers['list-unsubscribe']).toBeTruthy()
  }

  // The DKIM record disappears: one failed check is not enough to stop mail, the second is.
  const dkimName = record(verified, 'dkim')?.name ?? ''
  dns.remove(dkimName, 'TXT')
  expect((await verify(verified)).status).toBe('verified')
  const failed = await verify(verified)
  expect(failed.status).toBe('failed')
  expect(failed.failureReason).toMatch(/DKIM/i)

  const heldTo = recipient('held')
  const held = await sendOtp(verified, heldTo)
  const heldRow = await eventually(
    async () => {
      const row = await statusOf(held.id)
      return row?.status === 'held' ? row : undefined
    },
    { timeoutMs: 20_000, what: 'the new message held' },
  )
  expect(heldRow.code).toBe('sender_domain_unverified')
  expect(sink.store.list({ to: heldTo })).toHaveLength(0)

  // Published again: verified, and the held message goes out signed.
  publishDomainRecords(dns, verified, { purposes: ['dkim'] })
  expect((await verify(verified)).status).toBe('verified')
  expect((await receivedBy(heldTo)).auth).toMatchObject({ dkim: 'pass', dkimSelector: firstSelector })

  // Rotation: the old key keeps signing until the new record verifies, then the new key signs.
  const rotating = await rotateDkim({ tenantId, domainId: verified.id }, domainDeps())
  const newSelector = rotating.records.find(
    (entry) =>
      entry.purpose === 'dkim' && entry.selector !== firstSelector && entry.removableAfter === undefined,
  )?.selector
  expect(newSelector).toBeTruthy()
  const beforeSwitch = recipient('before-switch')
  await sendOtp(rotating, beforeSwitch)
  expect((await receivedBy(beforeSwitch)).auth).toMatchObject({ dkim: 'pass', dkimSelector: firstSelector })

  publishDomainRecords(dns, rotating, { purposes: ['dkim'] })
  const switched = await verify(rotating)
  expect(switched.status).toBe('verified')
  const retired = switched.records.find((entry) => entry.selector === firstSelector)
  expect(retired?.removableAfter).toBeTruthy()

  const afterSwitchTo = recipient('after-switch')
  await sendOtp(switched, afterSwitchTo)
  const afterSwitch = await receivedBy(afterSwitchTo)
  expect(afterSwitch.auth).toMatchObject({ dkim: 'pass', dkimSelector: newSelector })
  // Every mail of the story was signed and passed: the OTP, 3 campaign mails, the released one,
  // one before the switch and one after; nothing left unsigned or failing.
  const everything = (await (
    await fetch(`http://127.0.0.1:${sink.httpPort}/messages`)
  ).json()) as SinkMessage[]
  expect(everything.map((mail) => mail.auth.dkim)).toEqual(Array(7).fill('pass'))
  await eventually(async () => (await statusOf(otp.id))?.status === 'sent', { what: 'the OTP recorded sent' })
})
