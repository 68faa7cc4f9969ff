import { webhookDeliveries } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'
import {
  answer,
  createEndpoint,
  hang,
  startReceiver,
  type TestReceiver,
  writeSentEvents,
} from '../../testing/webhooks'

/**
 * The fairness scenario at test scale: tenant A's endpoint hangs past the timeout on every
 * call while A has 1,000 events; tenant B's 200 events, written meanwhile, reach B's healthy endpoint
 * within a second each (p99). Then A's endpoint recovers and every one of A's is delivered exactly once.
 */
const env = setupTestEnvironment('webhook-fairness')
const A_EVENTS = 1_000
const B_EVENTS = 200
let sink: MailSink
let pipeline: TestPipeline
let receiverA: TestReceiver
let receiverB: TestReceiver
const db = () => pipeline.database.db

beforeAll(async () => {
  sink = await startTestSink()
  receiverA = await startReceiver(hang)
  receiverB = await startReceiver()
  pipeline = await startTestPipeline(env, sink, {
    webhooks: {
      concurrency: 20,
      endpointConcurrency: 8,
      tenantConcurrency: 16,
      timeoutMs: 1_500,
      allowPrivate: true,
      tenantPlan: { ratePerSec: 200, burst: 200 },
      retryScheduleMs: [1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 60_000],
      park: { baseMs: 1_000, maxMs: 3_000 },
      pollMs: 100,
    },
  })
})

afterAll(async () => {
  await pipeline?.stop()
  await receiverA?.close()
  await receiverB?.close()
  await sink?.close()
})

const statusCount = async (endpointId: string, status: 'delivered' | 'pending') => {
  const [row] = await db()
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, status)))
  return row?.n ?? 0
}

describe('webhook fairness', () => {
  it("one tenant's hanging endpoint does not delay another tenant's events; its own all arrive once it recovers", async () => {
    const tenantA = await createTenant(db(), 'Hanging')
    const tenantB = await createTenant(db(), 'Healthy')
    const endpointA = await createEndpoint(db(), {
      tenantId: tenantA,
      url: receiverA.url,
      events: ['email.sent'],
    })
    const endpointB = await createEndpoint(db(), {
      tenantId: tenantB,
      url: receiverB.url,
      events: ['email.sent'],
    })

    await writeSentEvents(db(), { tenantId: tenantA, count: A_EVENTS, batch: 100 })
    // B's events arrive over five seconds (40 a second) while A's endpoint hangs and is parked.
    const eventAt = new Map<string, number>()
    for (let batch = 0; batch < 20; batch++) {
      const written = await writeSentEvents(db(), { tenantId: tenantB, count: B_EVENTS / 20 })
      for (const [messageId, at] of written) eventAt.set(messageId, at)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    await eventually(() => receiverB.received.length >= B_EVENTS, {
      what: "B's 200 events at B's receiver",
      timeoutMs: 20_000,
      intervalMs: 20,
    })
    const latencies = receiverB.received
      .map((request) => {
        const messageId = (JSON.parse(request.body) as { data: { messageId: string } }).data.messageId
        return request.receivedAtMs - (eventAt.get(messageId) ?? Number.NaN)
      })
      .sort((x, y) => x - y)
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1] ?? Number.NaN
    expect(latencies).toHaveLength(B_EVENTS)
    expect(p99).toBeLessThanOrEqual(1_000)
    // A's endpoint took at most its cap at a time: it was parked, not retried in front of B.
    expect(receiverA.received.length).toBeLessThan(40)

    receiverA.respond = answer(200, 'ok')
    await eventually(async () => (await statusCount(endpointA.id, 'delivered')) === A_EVENTS, {
      what: "all of A's deliveries delivered after its endpoint recovered",
      timeoutMs: 45_000,
      intervalMs: 200,
    })
    const answered = receiverA.received.filter((request) => request.answeredWith === 200)
    expect(answered).toHaveLength(A_EVENTS)
    expect(new Set(answered.map((request) => request.id)).size).toBe(A_EVENTS)
    expect(await statusCount(endpointB.id, 'delivered')).toBe(B_EVENTS)
    expect(new Set(receiverB.received.map((request) => request.id)).size).toBe(B_EVENTS)

    const metric = async (name: string) =>
      (await pipeline.registry.getSingleMetric(name)?.get())?.values ?? []
    expect((await metric('fairlane_webhook_pending_deliveries'))[0]?.value).toBe(0)
    const attempts = await metric('fairlane_webhook_attempts_total')
    expect(attempts.find((value) => value.labels.outcome === 'delivered')?.value).toBe(A_EVENTS + B_EVENTS)
    expect(attempts.find((value) => value.labels.outcome === 'timeout')?.value).toBeGreaterThan(0)
  })
})
