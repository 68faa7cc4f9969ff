import { webhookAttempts, webhookDeliveries } from '@fairlane/db'
import { insertWebhookDelivery, replayWebhookDeliveries } from '@fairlane/db/queries/webhook-delivery-log'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { asc, eq } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FeedbackStack, startFeedbackStack } from '../../testing/feedback-stack'
import { startTestPipeline, type TestPipeline } from '../../testing/pipeline'
import { createTenant, seedQueuedMessages } from '../../testing/seed'
import {
  answer,
  createEndpoint,
  startReceiver,
  type TestReceiver,
  writeSentEvents,
} from '../../testing/webhooks'

/**
 * Webhooks end to end, every part real: a message sent through the sink, its bounce reported by the
 * sink to the inbound server, both events posted to a receiver of the test's own and verified with
 * the `standardwebhooks` package; a receiver that fails before it accepts.
 */
const env = setupTestEnvironment('webhook-delivery')
let sink: MailSink
let feedback: FeedbackStack
let pipeline: TestPipeline
let receiver: TestReceiver
const db = () => pipeline.database.db

beforeAll(async () => {
  feedback = await startFeedbackStack(env.databaseUrl)
  sink = feedback.sink
  receiver = await startReceiver()
  pipeline = await startTestPipeline(env, sink, {
    webhooks: {
      concurrency: 10,
      endpointConcurrency: 4,
      tenantConcurrency: 8,
      timeoutMs: 2_000,
      allowPrivate: true,
      tenantPlan: { ratePerSec: 100, burst: 200 },
      retryScheduleMs: [100, 200, 300, 400],
      park: { baseMs: 300, maxMs: 2_000 },
      pollMs: 100,
    },
  })
})

afterAll(async () => {
  await pipeline?.stop()
  await receiver?.close()
  await feedback?.close()
})

describe('webhook delivery', () => {
  it("posts a message's email.sent, then its bounce as email.bounced, both verified with standardwebhooks", async () => {
    const tenantId = await createTenant(db(), 'Hooked')
    const endpoint = await createEndpoint(db(), {
      tenantId,
      url: receiver.url,
      events: ['email.sent', 'email.bounced'],
    })
    const to = 'nobody@bouncing.test'
    sink.faults.add({ match: to, bounce: '5.1.1', delayMs: 50 })
    const [message] = await seedQueuedMessages(db(), { tenantId, lane: 'default', to: () => to })

    const types = ['email.sent', 'email.bounced']
    const requests = await eventually(
      () => {
        const mine = receiver.received.filter((request) => request.body.includes(message?.id ?? '-'))
        return types.every((type) => mine.some((request) => JSON.parse(request.body).type === type))
          ? mine
          : undefined
      },
      { what: 'email.sent and email.bounced at the receiver', timeoutMs: 30_000, intervalMs: 50 },
    )
    const verifier = new Webhook(endpoint.secret)
    const bodies = requests.map(
      (request) =>
        verifier.verify(request.body, request.headers) as { type: string; data: Record<string, unknown> },
    )
    const sent = bodies.find((body) => body.type === 'email.sent')
    const bounced = bodies.find((body) => body.type === 'email.bounced')
    expect(sent?.data).toMatchObject({ messageId: message?.id, to, campaignId: null })
    expect(bounced?.data).toMatchObject({ messageId: message?.id, to, bounceType: 'hard', status: '5.1.1' })
    expect(new Set(requests.map((request) => request.id)).size).toBe(requests.length)

    const deliveries = await eventually(
      async () => {
        const rows = await db()
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.endpointId, endpoint.id))
        return rows.length === 2 && rows.every((row) => row.status === 'delivered') ? rows : undefined
      },
      { what: 'both deliveries recorded as delivered' },
    )
    expect(deliveries.map((row) => row.attempts)).toEqual([1, 1])
  })

  it('retries a receiver that fails 3 times, then delivers once with the same webhook-id on all 4 requests', async () => {
    const failing = await startReceiver()
    try {
      let calls = 0
      failing.respond = (request, response) => {
        calls += 1
        answer(calls <= 3 ? 503 : 200, calls <= 3 ? 'try later' : 'ok')(request, response)
      }
      const tenantId = await createTenant(db(), 'Flaky')
      const endpoint = await createEndpoint(db(), { tenantId, url: failing.url, events: ['email.sent'] })
      await writeSentEvents(db(), { tenantId, count: 1 })

      const [delivery] = await eventually(
        async () => {
          const rows = await db()
            .select()
            .from(webhookDeliveries)
            .where(eq(webhookDeliveries.endpointId, endpoint.id))
          return rows[0]?.status === 'delivered' ? rows : undefined
        },
        { what: 'the delivery delivered after 3 failures', timeoutMs: 15_000, intervalMs: 50 },
      )
      expect(failing.received).toHaveLength(4)
      expect(new Set(failing.received.map((request) => request.id))).toEqual(new Set([delivery?.webhookId]))
      expect(failing.received.map((request) => request.answeredWith)).toEqual([503, 503, 503, 200])
      for (const request of failing.received)
        expect(() => new Webhook(endpoint.secret).verify(request.body, request.headers)).not.toThrow()
      expect(delivery).toMatchObject({
        attempts: 4,
        lastStatusCode: 200,
        lastResponse: 'ok',
        lastError: null,
      })

      const attempts = await db()
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, delivery?.id ?? ''))
        .orderBy(asc(webhookAttempts.id))
      expect(attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
        [503, 'HTTP 503'],
        [503, 'HTTP 503'],
        [503, 'HTTP 503'],
        [200, null],
      ])
      expect(attempts[0]?.responseExcerpt).toBe('try later')
    } finally {
      await failing.close()
    }
  })

  it('records each failed attempt with its reason, and fails the delivery once the schedule is spent', async () => {
    const redirecting = await startReceiver((request, response) => {
      request.answeredWith = 302
      response.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end()
    })
    try {
      const tenantId = await createTenant(db(), 'Redirecting')
      const endpoint = await createEndpoint(db(), { tenantId, url: redirecting.url, events: ['email.sent'] })
      await writeSentEvents(db(), { tenantId, count: 1 })
      const [delivery] = await eventually(
        async () => {
          const rows = await db()
            .select()
            .from(webhookDeliveries)
            .where(eq(webhookDeliveries.endpointId, endpoint.id))
          return rows[0]?.status === 'failed' ? rows : undefined
        },
        { what: 'the delivery failed after 5 attempts', timeoutMs: 15_000, intervalMs: 50 },
      )
      // The schedule of 4 waits: 5 attempts, then failed.
      expect(delivery).toMatchObject({ attempts: 5, lastStatusCode: 302 })
      expect(delivery?.failedAt).toBeInstanceOf(Date)
      expect(redirecting.received).toHaveLength(5)
      const attempts = await db()
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, delivery?.id ?? ''))
      expect(attempts.map((attempt) => attempt.error)).toEqual(
        Array(5).fill('HTTP 302 redirect to http://127.0.0.1:9/elsewhere not followed'),
      )
    } finally {
      await redirecting.close()
    }
  })

  it('delivers a test event, and a replay of a failed delivery as one more attempt with the same webhook-id', async () => {
    const flaky = await startReceiver(answer(500, 'down'))
    try {
      const tenantId = await createTenant(db(), 'Replaying')
      const endpoint = await createEndpoint(db(), { tenantId, url: flaky.url, events: ['email.sent'] })
      await writeSentEvents(db(), { tenantId, count: 1 })
      const byEndpoint = () =>
        db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id))
      const [failed] = await eventually(
        async () => {
          const rows = await byEndpoint()
          return rows[0]?.status === 'failed' ? rows : undefined
        },
        { what: 'the delivery failed', timeoutMs: 15_000, intervalMs: 50 },
      )
      flaky.respond = answer(200, 'ok')
      await replayWebhookDeliveries(db(), {
        tenantId,
        endpointId: endpoint.id,
        deliveryIds: [failed?.id ?? ''],
      })
      const test = await insertWebhookDelivery(db(), {
        tenantId,
        endpointId: endpoint.id,
        eventType: 'webhook.test',
        payload: { type: 'webhook.test', createdAt: new Date().toISOString(), data: {} },
      })
      const rows = await eventually(
        async () => {
          const current = await byEndpoint()
          return current.length === 2 && current.every((row) => row.status === 'delivered')
            ? current
            : undefined
        },
        { what: 'the replay and the test event delivered', timeoutMs: 15_000, intervalMs: 50 },
      )
      const replayed = rows.find((row) => row.id === failed?.id)
      expect(replayed).toMatchObject({ attempts: 6, webhookId: failed?.webhookId, failedAt: null })
      const answered = flaky.received.filter((request) => request.answeredWith === 200)
      expect(answered.map((request) => request.id).sort()).toEqual(
        [failed?.webhookId, test?.webhookId].sort(),
      )
      const testRequest = answered.find((request) => request.id === test?.webhookId)
      expect(
        new Webhook(endpoint.secret).verify(testRequest?.body ?? '', testRequest?.headers ?? {}),
      ).toMatchObject({
        type: 'webhook.test',
      })
    } finally {
      await flaky.close()
    }
  })
})
