import { messageEvents, messages, receiverStates } from '@fairlane/db'
import { dispatchCampaignBatch } from '@fairlane/db/queries/dispatch'
import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline } from '../../testing/pipeline'
import { createTenant, seedCampaign, setPlan } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * MX mode with BULK_BATCH_SIZE=50: a campaign goes from the pacer in jobs per (tenant, provider),
 * each asking the provider's budget once, sent over the pooled connection to the provider's host,
 * marked in one statement; a throttle mid-batch stops the batch; one message's refusal is its own.
 */
const env = setupTestEnvironment('mx-batches')
let sink: MailSink
let pipeline: TestPipeline

beforeAll(async () => {
  sink = await startTestSink({ receivers: true })
  const dns = sink.dns
  if (!dns || sink.receiverPort === undefined) throw new Error('the test sink has no receivers')
  pipeline = await startTestPipeline(env, sink, {
    pacer: { highWater: 150, horizonMs: 1_000, batchSize: 50 },
    receivers: {
      rules: loadReceiverRules(),
      dnsServers: [dns.address],
      port: sink.receiverPort,
      heloName: 'mx-test.fairlane.test',
      tls: 'opportunistic',
      allowPrivate: true,
      egressAddresses: ['127.0.0.2'],
      maxAgeMs: 72 * 3_600_000,
      timeoutMs: 2_000,
    },
  })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})
beforeEach(() => {
  sink.faults.clear()
})

const db = () => pipeline.database.db

function receiver(name: string) {
  const found = sink.receivers.find((candidate) => candidate.name === name)
  if (!found) throw new Error(`no ${name} receiver`)
  return found
}

/**
 * A due campaign of `contacts` at `domain` (`<prefix><n>@<domain>`, n from 1), dispatched at once in
 * one statement, so the pacer finds every row in one tick; `beforeDispatch` runs before any is pending.
 */
async function campaign(
  tenantId: string,
  contacts: number,
  domain: string,
  beforeDispatch?: (address: (n: number) => string) => void,
) {
  const { campaignId, prefix } = await seedCampaign(db(), {
    tenantId,
    contacts,
    domain,
    sendAt: new Date(Date.now() + 3_600_000),
  })
  beforeDispatch?.((n) => `${prefix}${n}@${domain}`)
  await db().execute(sql`update campaigns set send_at = now() where id = ${campaignId}`)
  await dispatchCampaignBatch(db(), { campaignId, batchSize: 1_000 })
  const rows = await db()
    .select({ id: messages.id, toAddress: messages.toAddress })
    .from(messages)
    .where(eq(messages.campaignId, campaignId))
  return { prefix, rows, ids: rows.map((row) => row.id) }
}

async function rowsOf(ids: readonly string[]) {
  return db()
    .select({ id: messages.id, status: messages.status, attempts: messages.attempts })
    .from(messages)
    .where(inArray(messages.id, [...ids]))
}

async function eventsOf(ids: readonly string[], type: 'sent' | 'deferred' | 'failed') {
  return db()
    .select({ messageId: messageEvents.messageId, detail: messageEvents.detail })
    .from(messageEvents)
    .where(and(inArray(messageEvents.messageId, [...ids]), eq(messageEvents.type, type)))
}

async function bulkJobsCompleted(): Promise<number> {
  const text = await pipeline.registry.metrics()
  const match = /fairlane_jobs_completed_total\{lane="bulk"\} (\d+)/.exec(text)
  return match ? Number(match[1]) : 0
}

describe('MX mode batches', () => {
  it('sends a campaign to one provider in batch jobs: each row claimed, sent and marked once, over few connections', async () => {
    const tenantId = await createTenant(db(), 'Batch MX Co')
    await setPlan(db(), tenantId, { ratePerSec: 10_000, burst: 10_000 })
    const microsoft = receiver('microsoft')
    microsoft.gate.resetCounts()
    const before = await bulkJobsCompleted()
    const { prefix, ids } = await campaign(tenantId, 8, 'outlook.test')
    expect(ids).toHaveLength(8)
    await eventually(async () => (await rowsOf(ids)).every((row) => row.status === 'sent'), {
      what: 'every row sent',
      timeoutMs: 20_000,
    })
    expect(sink.store.list().filter((mail) => mail.to.startsWith(prefix))).toHaveLength(8)
    expect(duplicateMessageIds(sink)).toEqual([])
    // Claimed once (one attempt each), marked once (one sent event each).
    for (const row of await rowsOf(ids)) expect(row.attempts).toBe(1)
    const sent = await eventsOf(ids, 'sent')
    expect(new Set(sent.map((event) => event.messageId)).size).toBe(8)
    expect(sent).toHaveLength(8)
    // 8 for one provider within microsoft's first second of budget: one job (a tick between the
    // dispatch and the release may split it), sent on one pooled connection.
    await eventually(async () => (await bulkJobsCompleted()) - before >= 1, { what: 'the batch job done' })
    expect((await bulkJobsCompleted()) - before).toBeLessThanOrEqual(2)
    const status = microsoft.gate.status()
    expect(status.accepted).toBe(8)
    expect(status.connections).toBeLessThanOrEqual(2)
  })

  it('a throttle reply mid-batch stops the batch: the rest wait for google’s pace, nothing failed, no hammering', async () => {
    const tenantId = await createTenant(db(), 'Throttled MX Co')
    await setPlan(db(), tenantId, { ratePerSec: 10_000, burst: 10_000 })
    const google = receiver('google')
    google.gate.resetCounts()
    sink.faults.add({ receiver: 'google', throttle: { perMinute: 3, per: 'source' } })
    const { ids } = await campaign(tenantId, 8, 'gmail.test')
    // Google is paused for everyone after its first throttle reply.
    await eventually(
      async () => {
        const rows = await db()
          .select()
          .from(receiverStates)
          .where(and(eq(receiverStates.provider, 'google'), eq(receiverStates.scope, '')))
        return rows.length === 1 && rows
      },
      { what: 'google paused', timeoutMs: 15_000 },
    )
    // Every row is sent (3) or waiting for google, deferred: none failed, no attempt spent on the wait.
    await eventually(
      async () => {
        const rows = await rowsOf(ids)
        return (
          rows.filter((row) => row.status === 'sent').length === 3 &&
          rows.every((row) => row.status === 'sent' || row.status === 'pending' || row.status === 'queued')
        )
      },
      { what: 'three sent, the rest waiting', timeoutMs: 15_000 },
    )
    expect(await eventsOf(ids, 'failed')).toEqual([])
    for (const row of await rowsOf(ids)) expect(row.attempts).toBeLessThanOrEqual(1)
    const deferred = await eventsOf(ids, 'deferred')
    expect(new Set(deferred.map((event) => event.messageId)).size).toBe(5)
    for (const event of deferred) expect(event.detail).toMatchObject({ provider: 'google' })
    const status = google.gate.status()
    expect(status.accepted).toBe(3)
    // One throttle reply stops the batch: the rest are not tried against it (one batch of 8 makes
    // 4 attempts; a tick that split the release into two batches, one more of each).
    expect(status.throttled).toBeLessThanOrEqual(2)
    expect(status.attempts).toBeLessThanOrEqual(5)
  })

  it('a message refused for good fails alone; the rest of its batch is sent', async () => {
    const tenantId = await createTenant(db(), 'Refused MX Co')
    await setPlan(db(), tenantId, { ratePerSec: 10_000, burst: 10_000 })
    const { rows, ids } = await campaign(tenantId, 5, 'others.test', (address) => {
      sink.faults.add({ match: address(3), reply: '550 5.1.1 no such user', times: 1 })
    })
    const refused = rows.find((row) => row.toAddress.endsWith('3@others.test'))
    if (!refused) throw new Error('no third row')
    await eventually(
      async () =>
        (await rowsOf(ids)).every((row) => row.status === (row.id === refused.id ? 'failed' : 'sent')),
      { what: 'one failed, the rest sent', timeoutMs: 20_000 },
    )
    expect(await eventsOf(ids, 'deferred')).toEqual([])
    expect(receiver('others').gate.status().throttled).toBe(0)
  })
})
