import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { type AttemptStore, type AttemptTarget, attemptWebhookDelivery } from './attempt-delivery'
import type { AttemptResult } from './attempt-outcome'

const secret = `whsec_${randomBytes(32).toString('base64')}`
const target: AttemptTarget = {
  deliveryId: 'd1',
  tenantId: 't1',
  endpointId: 'e1',
  url: 'https://hooks.example.com/in',
  webhookId: 'msg_abc',
  payload: { type: 'email.sent', createdAt: '2026-12-04T17:00:00.000Z', data: { messageId: 'm1' } },
  secrets: [secret],
  parkLevel: 0,
}

function fakeStore(found: AttemptTarget | null) {
  const recorded: Parameters<AttemptStore['record']>[0][] = []
  const store: AttemptStore = {
    findTarget: async () => found,
    record: async (input) => {
      recorded.push(input)
      return true
    },
  }
  return { store, recorded }
}

describe('attemptWebhookDelivery', () => {
  it('posts the stored payload signed so that standardwebhooks verifies it, and records the success', async () => {
    const { store, recorded } = fakeStore(target)
    const sent: { body: string; headers: Record<string, string> }[] = []
    const outcome = await attemptWebhookDelivery(
      { tenantId: 't1', deliveryId: 'd1', attempt: 1 },
      {
        store,
        clock: { now: () => new Date() },
        post: async (request) => {
          sent.push({ body: request.body, headers: { ...request.headers } })
          return { ok: true, statusCode: 200, excerpt: 'ok', durationMs: 5 }
        },
      },
    )
    const [request] = sent
    expect(new Webhook(secret).verify(request?.body ?? '', request?.headers ?? {})).toEqual(target.payload)
    expect(request?.headers['webhook-id']).toBe('msg_abc')
    expect(outcome).toMatchObject({
      kind: 'attempted',
      recorded: true,
      decision: { delivery: { status: 'delivered' } },
    })
    expect(recorded).toHaveLength(1)
  })

  it('schedules the next attempt when the endpoint fails', async () => {
    const { store, recorded } = fakeStore(target)
    const failed: AttemptResult = {
      ok: false,
      kind: 'status',
      error: 'HTTP 500',
      statusCode: 500,
      durationMs: 3,
    }
    const now = new Date('2026-12-04T17:00:00.000Z')
    await attemptWebhookDelivery(
      { tenantId: 't1', deliveryId: 'd1', attempt: 2 },
      {
        store,
        clock: { now: () => now },
        post: async () => failed,
        rules: { retryScheduleMs: [10, 20, 30], random: () => 0.5 },
      },
    )
    expect(recorded[0]?.decision.delivery).toEqual({
      status: 'pending',
      nextAttemptAt: new Date(now.getTime() + 20),
    })
  })

  it('sends nothing when the attempt no longer holds the lease', async () => {
    const { store, recorded } = fakeStore(null)
    let posted = 0
    const outcome = await attemptWebhookDelivery(
      { tenantId: 't1', deliveryId: 'd1', attempt: 1 },
      {
        store,
        clock: { now: () => new Date() },
        post: async () => {
          posted += 1
          return { ok: true, statusCode: 200, excerpt: '', durationMs: 1 }
        },
      },
    )
    expect(outcome).toEqual({ kind: 'skipped' })
    expect(posted).toBe(0)
    expect(recorded).toHaveLength(0)
  })
})
