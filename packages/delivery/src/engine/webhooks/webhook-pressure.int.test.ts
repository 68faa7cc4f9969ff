import { webhookDeliveries, webhookEndpoints } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, count, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'
import {
  answer,
  answerAfter,
  createEndpoint,
  mostAtOnce,
  startReceiver,
  type TestReceiver,
  writeSentEvents,
} from '../../testing/webhooks'

/**
 * Pressure on the webhook lane from receivers that answer 200, only slowly: one tenant's many slow
 * endpoints hold at most its in-flight cap of the lane's workers (another tenant's event starts at
 * once), and an endpoint whose 2xx is slow is slowed to one attempt at a time.
 */
const env = setupTestEnvironment('webhook-pressure')
const TENANT_CAP = 6
const ENDPOINT_CAP = 4
const SLOW_MS = 1_000
let sink: MailSink
let pipeline: TestPipeline
const receivers: TestReceiver[] = []
const db = () => pipeline.database.db

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(env, sink, {
    webhooks: {
      concurrency: 20,
      endpointConcurrency: ENDPOINT_CAP,
      tenantConcurrency: TENANT_CAP,
      timeoutMs: 10_000,
      slowMs: SLOW_MS,
      allowPrivate: true,
      tenantPlan: { ratePerSec: 200, burst: 200 },
      pollMs: 100,
    },
  })
})

afterAll(async () => {
  await pipeline?.stop()
  await Promise.all(receivers.map((receiver) => receiver.close()))
  await sink?.close()
})

async function receiver(respond: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(respond)
  receivers.push(started)
  return started
}

const delivered = async (endpointIds: string[]) => {
  const [row] = await db()
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.endpointId, endpointIds), eq(webhookDeliveries.status, 'delivered')))
  return row?.n ?? 0
}

describe('webhook pressure', () => {
  it("another tenant's event starts within a second while one tenant's slow endpoints are saturated", async () => {
    const tenantA = await createTenant(db(), 'Slow everywhere')
    const tenantB = await createTenant(db(), 'Quick')
    const slowReceivers = await Promise.all(Array.from({ length: 10 }, () => receiver(answerAfter(2_500))))
    const endpointsA = await Promise.all(
      slowReceivers.map((slow) =>
        createEndpoint(db(), { tenantId: tenantA, url: slow.url, events: ['email.sent'] }),
      ),
    )
    const receiverB = await receiver(answer(200, 'ok'))
    await createEndpoint(db(), { tenantId: tenantB, url: receiverB.url, events: ['email.sent'] })
    const requestsA = () => slowReceivers.flatMap((slow) => slow.received)

    // 8 events for each of A's 10 endpoints: 80 slow deliveries, far more than the lane's 20 workers.
    await writeSentEvents(db(), { tenantId: tenantA, count: 8 })
    await eventually(
      () => requestsA().filter((request) => request.endedAtMs === undefined).length >= TENANT_CAP,
      { what: "A's slow endpoints saturated", timeoutMs: 10_000, intervalMs: 20 },
    )
    const eventAt = new Map<string, number>()
    for (let event = 0; event < 3; event++) {
      for (const [messageId, at] of await writeSentEvents(db(), { tenantId: tenantB, count: 1 }))
        eventAt.set(messageId, at)
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
    await eventually(() => receiverB.received.length >= 3, {
      what: "B's 3 events at B's receiver",
      timeoutMs: 15_000,
      intervalMs: 20,
    })
    const latencies = receiverB.received.map((request) => {
      const messageId = (JSON.parse(request.body) as { data: { messageId: string } }).data.messageId
      return request.receivedAtMs - (eventAt.get(messageId) ?? Number.NaN)
    })
    expect(Math.max(...latencies)).toBeLessThanOrEqual(1_000)
    // A never held more than its cap of the lane, spread over its endpoints.
    expect(mostAtOnce(requestsA())).toBeLessThanOrEqual(TENANT_CAP)

    // Once A's receivers answer quickly, every one of A's 80 arrives, once.
    for (const slow of slowReceivers) slow.respond = answer(200, 'ok')
    await eventually(async () => (await delivered(endpointsA.map((endpoint) => endpoint.id))) === 80, {
      what: "all of A's deliveries delivered",
      timeoutMs: 45_000,
      intervalMs: 200,
    })
    const answered = requestsA().filter((request) => request.answeredWith === 200)
    expect(new Set(answered.map((request) => request.id)).size).toBe(80)
  })

  it('slows an endpoint whose 2xx is slow to one attempt at a time, and lets it go once it answers quickly', async () => {
    const tenantId = await createTenant(db(), 'Slow receiver')
    const slow = await receiver(answerAfter(SLOW_MS + 500))
    const endpoint = await createEndpoint(db(), { tenantId, url: slow.url, events: ['email.sent'] })
    const endpointRow = async () =>
      (await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)))[0]

    await writeSentEvents(db(), { tenantId, count: 10 })
    await eventually(async () => (await delivered([endpoint.id])) === 10, {
      what: "the slow endpoint's 10 deliveries delivered",
      timeoutMs: 45_000,
      intervalMs: 100,
    })
    const arrivals = [...slow.received].sort((x, y) => x.receivedAtMs - y.receivedAtMs)
    expect(arrivals).toHaveLength(10)
    // The first ENDPOINT_CAP went at once; after their slow answers, each went alone.
    expect(mostAtOnce(arrivals.slice(0, ENDPOINT_CAP))).toBeGreaterThan(1)
    expect(arrivals.slice(ENDPOINT_CAP).map((request) => request.othersInProgress)).toEqual(
      Array(10 - ENDPOINT_CAP).fill(0),
    )
    // Slowed, not parked: no failing days, no park level; every delivery delivered once.
    const slowed = await endpointRow()
    expect(slowed).toMatchObject({ parkLevel: 0, failingSince: null })
    expect(slowed?.parkedUntil).toBeInstanceOf(Date)
    expect(new Set(arrivals.map((request) => request.id)).size).toBe(10)

    slow.respond = answer(200, 'ok')
    await writeSentEvents(db(), { tenantId, count: 3 })
    await eventually(async () => (await delivered([endpoint.id])) === 13, {
      what: 'the quick deliveries delivered',
      timeoutMs: 15_000,
      intervalMs: 100,
    })
    expect(await endpointRow()).toMatchObject({ parkedUntil: null, parkLevel: 0 })
  })
})
