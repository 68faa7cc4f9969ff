import { randomUUID } from 'node:crypto'
import { resubscribeContact, signUnsubscribeToken, unsubscribeKey } from '@fairlane/core'
import { contacts } from '@fairlane/db'
import { createResubscribeStore } from '@fairlane/db/queries/resubscribe'
import { type MailSink, startMailSink } from '@fairlane/mailsink/sink'
import {
  eventually,
  freePort,
  type RunningProcess,
  setupTestEnvironment,
  spawnEntry,
} from '@fairlane/testing'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getCampaign } from '../api/v1/get-campaign'
import { getMessage } from '../api/v1/get-message'
import { postCampaign } from '../api/v1/post-campaign'
import { postMessage } from '../api/v1/post-message'
import { getSuppressions, postSuppressions } from '../api/v1/suppressions'
import { createWebHarness, jsonRequest, readJson, seedTenant, type WebHarness } from '../test-support/harness'
import { submitUnsubscribe, type UnsubscribeDeps } from './unsubscribe-page'

/**
 * Suppression scopes end to end: the web handlers in this process, the real worker (`main.ts`) in a
 * process of its own delivering to an in-process mail sink, one PostgreSQL and Redis. An unsubscribe
 * stops campaign mail only; a bounce or a manual entry stops every lane; a resubscribe is audited.
 */
const env = setupTestEnvironment('suppression-scopes')
const UNSUBSCRIBE_SECRET = 'scopes-test-unsubscribe-secret-0123456789ab'
const SESSION_SECRET = 'scopes-test-session-secret-0123456789abcdef'
const key = unsubscribeKey({
  secrets: [{ kid: 1, secret: UNSUBSCRIBE_SECRET }],
  sessionSecret: SESSION_SECRET,
})

let harness: WebHarness
let sink: MailSink
let worker: RunningProcess
let tenantId: string
let apiKey: string
const run = randomUUID().slice(0, 8)
const reader = `reader-${run}@example.test`
const other = `other-${run}@example.test`
let readerId: string

beforeAll(async () => {
  harness = createWebHarness(env)
  sink = await startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    maxMessages: 1000,
    logger: pino({ level: 'silent' }),
  })
  worker = spawnEntry('apps/worker/src/main.ts', {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    QUEUE_PREFIX: env.queuePrefix,
    SMTP_URL: `smtp://127.0.0.1:${sink.smtpPort}`,
    WORKER_METRICS_PORT: String(await freePort()),
    SESSION_SECRET,
    UNSUBSCRIBE_SECRET: `1:${UNSUBSCRIBE_SECRET}`,
    SHUTDOWN_FORCE_EXIT_MS: '10000',
  })
  ;({ tenantId, apiKey } = await seedTenant(harness, 'Scoped News'))
  const rows = await harness.database.db
    .insert(contacts)
    .values([
      { tenantId, email: reader, name: 'Reader' },
      { tenantId, email: other, name: 'Other' },
    ])
    .returning({ id: contacts.id, email: contacts.email })
  readerId = rows.find((row) => row.email === reader)?.id ?? ''
}, 120_000)

afterAll(async () => {
  if (worker && worker.child.exitCode === null) {
    worker.child.kill('SIGTERM')
    await worker.exited
  }
  await sink?.close()
  await harness?.close()
})

const api = {
  post: (path: string, body: unknown) => jsonRequest(path, { token: apiKey, body }),
  get: (path: string) => jsonRequest(path, { token: apiKey }),
}

async function sendOtp(to: string): Promise<string> {
  const response = await postMessage(
    api.post('/api/v1/messages', { to, template: 'otp', variables: { code: '246810' } }),
    harness.apiDeps(),
  )
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(202)
  return (await readJson<{ id: string }>(response)).id
}

/** The message's final status, polled through the API with a deadline (the worker is another process). */
async function finalStatus(id: string): Promise<string> {
  return eventually(
    async () => {
      const message = await readJson<{ status: string }>(
        await getMessage(api.get(`/api/v1/messages/${id}`), id, harness.apiDeps()),
      )
      return ['sent', 'failed', 'suppressed'].includes(message.status) ? message.status : undefined
    },
    { what: `message ${id} to finish (worker output: ${worker.output().slice(-1500)})`, timeoutMs: 30_000 },
  )
}

/** Schedules a campaign to all subscribed contacts and waits until every message of it has finished. */
async function runCampaign(subject: string) {
  const response = await postCampaign(
    api.post('/api/v1/campaigns', {
      name: subject,
      subject,
      html: '<p>Hello {{name}}</p>',
      sendAt: new Date(Date.now() + 1_500).toISOString(),
    }),
    harness.apiDeps(),
  )
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(201)
  const { id } = await readJson<{ id: string }>(response)
  return eventually(
    async () => {
      const campaign = await readJson<{ status: string; counts: Record<string, number> }>(
        await getCampaign(api.get(`/api/v1/campaigns/${id}`), id, harness.apiDeps()),
      )
      return campaign.status === 'sent' ? campaign.counts : undefined
    },
    { what: `campaign ${subject} sent (worker output: ${worker.output().slice(-1500)})`, timeoutMs: 30_000 },
  )
}

const mailsTo = (address: string, subject?: string) =>
  sink.store
    .list()
    .filter((mail) => mail.to === address && (subject === undefined || mail.subject === subject))

const suppressionsOf = async (email: string) =>
  (
    await readJson<{ items: Record<string, unknown>[] }>(
      await getSuppressions(
        api.get(`/api/v1/suppressions?email=${encodeURIComponent(email)}`),
        harness.apiDeps(),
      ),
    )
  ).items

describe('suppression scopes', () => {
  it('an unsubscribe stops campaigns only: the next OTP is delivered, the next campaign skips them', async () => {
    const deps: UnsubscribeDeps = {
      db: harness.database.db,
      key,
      clock: { now: () => new Date() },
      logger: harness.logger,
    }
    const token = signUnsubscribeToken({ tenantId, contactId: readerId, campaignId: randomUUID() }, key)
    const oneClick = new Request(`http://127.0.0.1:3000/u/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    })
    expect((await submitUnsubscribe(oneClick, token, deps)).status).toBe(200)
    expect(await suppressionsOf(reader)).toEqual([
      expect.objectContaining({ email: reader, reason: 'unsubscribe', scope: 'marketing', lanes: ['bulk'] }),
    ])

    const otp = await sendOtp(reader)
    expect(await finalStatus(otp)).toBe('sent')
    expect(mailsTo(reader)).toHaveLength(1)

    const counts = await runCampaign(`Skip the unsubscribed ${run}`)
    expect(counts).toMatchObject({ sent: 1, suppressed: 1 })
    expect(mailsTo(other, `Skip the unsubscribed ${run}`)).toHaveLength(1)
    expect(mailsTo(reader, `Skip the unsubscribed ${run}`)).toHaveLength(0)
  })

  it('a manual entry stops every lane by default, OTP included', async () => {
    const manual = `manual-${run}@example.test`
    const added = await postSuppressions(
      api.post('/api/v1/suppressions', { emails: [manual.toUpperCase()] }),
      harness.apiDeps(),
    )
    expect(added.status).toBe(200)
    expect((await readJson<{ items: unknown[] }>(added)).items).toEqual([
      expect.objectContaining({
        email: manual,
        reason: 'manual',
        scope: 'all',
        lanes: ['critical', 'default', 'bulk'],
      }),
    ])
    expect(await finalStatus(await sendOtp(manual))).toBe('suppressed')
    expect(mailsTo(manual)).toHaveLength(0)
  })

  it('a hard bounce stops the next OTP, and widens an earlier unsubscribe to every lane', async () => {
    const bouncing = `bouncing-${run}@example.test`
    const [row] = await harness.database.db
      .insert(contacts)
      .values({ tenantId, email: bouncing, unsubscribedAt: new Date() })
      .returning({ id: contacts.id })
    await postSuppressions(
      api.post('/api/v1/suppressions', { emails: [bouncing], scope: 'marketing' }),
      harness.apiDeps(),
    )
    expect(row).toBeDefined()
    sink.faults.add({ match: bouncing, reply: '550 5.1.1 no such user' })
    expect(await finalStatus(await sendOtp(bouncing))).toBe('failed')
    expect(await suppressionsOf(bouncing)).toEqual([
      expect.objectContaining({ reason: 'hard-bounce', scope: 'all' }),
    ])
    sink.faults.clear()
    expect(await finalStatus(await sendOtp(bouncing))).toBe('suppressed')
    expect(mailsTo(bouncing)).toHaveLength(0)
  })

  it('a resubscribe needs the confirmation, is audited, and the next campaign reaches them', async () => {
    const store = createResubscribeStore(harness.database.db)
    const clock = { now: () => new Date() }
    const actor = { userId: 'user-1', email: 'owner@scoped.example' }
    await expect(
      resubscribeContact(
        { tenantId, contactId: readerId, actor, confirmed: false, note: '' },
        { store, clock },
      ),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [{ path: 'confirmed' }] })
    expect(await suppressionsOf(reader)).toHaveLength(1)

    const result = await resubscribeContact(
      { tenantId, contactId: readerId, actor, confirmed: true, note: ' asked on the phone ' },
      { store, clock },
    )
    expect(result).toEqual({ kind: 'resubscribed', email: reader, remainingScope: null })
    expect(await suppressionsOf(reader)).toEqual([])
    const audit = await harness.database.sql`
      select actor_user_id, actor, action, target_type, target_id, reason, details
      from tenant_audit_log where tenant_id = ${tenantId}`
    expect(audit).toEqual([
      {
        actor_user_id: 'user-1',
        actor: 'owner@scoped.example',
        action: 'contact.resubscribe',
        target_type: 'contact',
        target_id: readerId,
        reason: 'asked on the phone',
        details: expect.objectContaining({
          email: reader,
          confirmedPersonAsked: true,
          liftedSuppression: expect.objectContaining({ reason: 'unsubscribe' }),
        }),
      },
    ])
    // Again: nothing left to undo, and nothing more in the audit log.
    expect(
      await resubscribeContact(
        { tenantId, contactId: readerId, actor, confirmed: true, note: '' },
        { store, clock },
      ),
    ).toEqual({ kind: 'already-subscribed' })
    const [{ n } = { n: 0 }] = await harness.database
      .sql`select count(*)::int as n from tenant_audit_log where tenant_id = ${tenantId}`
    expect(n).toBe(1)

    const subject = `Welcome back ${run}`
    const counts = await runCampaign(subject)
    expect(mailsTo(reader, subject)).toHaveLength(1)
    expect(counts).toMatchObject({ sent: 2 })
  })

  it('another tenant sees none of these entries and cannot resubscribe the contact', async () => {
    const stranger = await seedTenant(harness, 'Stranger')
    const listed = await getSuppressions(
      jsonRequest('/api/v1/suppressions', { token: stranger.apiKey }),
      harness.apiDeps(),
    )
    expect((await readJson<{ items: unknown[] }>(listed)).items).toEqual([])
    const result = await resubscribeContact(
      {
        tenantId: stranger.tenantId,
        contactId: readerId,
        actor: { userId: 'x', email: 'x@stranger.example' },
        confirmed: true,
        note: '',
      },
      { store: createResubscribeStore(harness.database.db), clock: { now: () => new Date() } },
    )
    expect(result).toEqual({ kind: 'not-found' })
  })
})
