import { randomUUID } from 'node:crypto'
import { encodeMessageCursor } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteDeps } from '../../routes'
import { callRoute, routeDeps } from '../../test-support/api-calls'
import {
  createWebHarness,
  readJson,
  seedApiKey,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { postMessagesBatch } from './post-messages-batch'

/**
 * Scheduled sends, cancel, the message list and batch, through the route table with real PostgreSQL
 * and Redis (the releaser that sends scheduled mail is tested in the delivery engine).
 */
const env = setupTestEnvironment('web-ways-in')

let harness: WebHarness
let deps: RouteDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>
let other: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = routeDeps(harness, harness.apiDeps())
  tenant = await seedTenant(harness, 'Scheduler')
  other = await seedTenant(harness, 'Other')
})
afterAll(async () => {
  await harness?.close()
})

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString()
const call = (method: string, path: string, body?: unknown, token = tenant.apiKey) =>
  callRoute(deps, method, path, { token, ...(body === undefined ? {} : { body }) })

async function rowOf(id: string) {
  const [row] = await harness.database.sql<
    { status: string; send_at: Date | null; source: string | null; tenant_id: string }[]
  >`select status, send_at, source, tenant_id from messages where id = ${id}`
  return row
}
async function eventsOf(id: string) {
  const rows = await harness.database.sql<{ type: string }[]>`
    select type from message_events where message_id = ${id} order by id`
  return rows.map((row) => row.type)
}
async function outboxOf(id: string) {
  return harness.database.sql`select id from outbox where payload->>'messageId' = ${id}`
}

describe('sendAt', () => {
  it('accepts a future instant as scheduled: its events, no outbox row yet, source api', async () => {
    const sendAt = inHours(20)
    const response = await call('POST', '/api/v1/messages', {
      to: 'later@example.test',
      subject: 'Reminder',
      text: 'Tomorrow',
      sendAt,
    })
    expect(response.status).toBe(202)
    const body = await readJson<{ id: string; status: string }>(response)
    expect(body.status).toBe('scheduled')
    const row = await rowOf(body.id)
    expect(row).toMatchObject({ status: 'scheduled', source: 'api' })
    expect(new Date(row?.send_at ?? 0).toISOString()).toBe(sendAt)
    expect(await eventsOf(body.id)).toEqual(['accepted', 'scheduled'])
    expect(await outboxOf(body.id)).toHaveLength(0)
  })

  it('refuses beyond 30 days or more than a minute back with 422 naming sendAt; a local time is a 400', async () => {
    for (const sendAt of [inHours(24 * 30 + 1), new Date(Date.now() - 120_000).toISOString()]) {
      const response = await call('POST', '/api/v1/messages', {
        to: 'x@example.test',
        subject: 's',
        text: 't',
        sendAt,
      })
      expect(response.status).toBe(422)
      const body = await readJson<{ error: { details: { path: string }[] } }>(response)
      expect(body.error.details.map((issue) => issue.path)).toEqual(['sendAt'])
    }
    const local = await call('POST', '/api/v1/messages', {
      to: 'x@example.test',
      subject: 's',
      text: 't',
      sendAt: '2030-01-01T09:00:00',
    })
    expect(local.status).toBe(400)
    expect(JSON.stringify(await readJson(local))).toContain('sendAt')
  })
})

describe('DELETE /api/v1/messages/:id', () => {
  it('cancels a scheduled message (event cancelled), answers the same again, 409 once sent, 404 for others', async () => {
    const accepted = await readJson<{ id: string }>(
      await call('POST', '/api/v1/messages', {
        to: 'c@example.test',
        subject: 's',
        text: 't',
        sendAt: inHours(2),
      }),
    )
    const cancelled = await call('DELETE', `/api/v1/messages/${accepted.id}`)
    expect(cancelled.status).toBe(200)
    expect(await readJson(cancelled)).toEqual({ id: accepted.id, status: 'cancelled' })
    expect((await rowOf(accepted.id))?.status).toBe('cancelled')
    expect(await eventsOf(accepted.id)).toEqual(['accepted', 'scheduled', 'cancelled'])
    expect((await call('DELETE', `/api/v1/messages/${accepted.id}`)).status).toBe(200)
    expect(await eventsOf(accepted.id)).toHaveLength(3)

    // Another tenant's key, an unknown id and a malformed one: 404 alike.
    const theirs = await readJson<{ id: string }>(
      await call(
        'POST',
        '/api/v1/messages',
        { to: 'o@example.test', subject: 's', text: 't', sendAt: inHours(2) },
        other.apiKey,
      ),
    )
    expect((await call('DELETE', `/api/v1/messages/${theirs.id}`)).status).toBe(404)
    expect((await rowOf(theirs.id))?.status).toBe('scheduled')
    expect((await call('DELETE', `/api/v1/messages/${randomUUID()}`)).status).toBe(404)
    expect((await call('DELETE', '/api/v1/messages/not-an-id')).status).toBe(404)

    // Claimed or finished: too late.
    for (const status of ['sending', 'sent']) {
      await harness.database.sql`update messages set status = ${status} where id = ${theirs.id}`
      const late = await call('DELETE', `/api/v1/messages/${theirs.id}`, undefined, other.apiKey)
      expect(late.status).toBe(409)
    }
  })

  it('cancels a queued message no worker holds, and a sending key may cancel', async () => {
    const sending = await seedApiKey(harness, { tenantId: tenant.tenantId, scope: 'sending' })
    const accepted = await readJson<{ id: string }>(
      await call(
        'POST',
        '/api/v1/messages',
        { to: 'q@example.test', subject: 's', text: 't' },
        sending.apiKey,
      ),
    )
    expect((await rowOf(accepted.id))?.status).toBe('queued')
    const response = await call('DELETE', `/api/v1/messages/${accepted.id}`, undefined, sending.apiKey)
    expect(response.status).toBe(200)
    expect((await rowOf(accepted.id))?.status).toBe('cancelled')
  })
})

describe('GET /api/v1/messages', () => {
  it('lists newest first with filters and keyset pages; only the tenant’s own; a full key only', async () => {
    const lister = await seedTenant(harness, 'Lister')
    const ids: string[] = []
    for (let i = 0; i < 5; i += 1) {
      const body = {
        to: `list${i % 2}@example.test`,
        subject: `n${i}`,
        text: 't',
        ...(i === 4 ? { sendAt: inHours(3) } : {}),
      }
      ids.push(
        (await readJson<{ id: string }>(await call('POST', '/api/v1/messages', body, lister.apiKey))).id,
      )
    }
    const all = await readJson<{ items: { id: string; sendAt?: string }[]; nextCursor?: string }>(
      await call('GET', '/api/v1/messages', undefined, lister.apiKey),
    )
    expect(all.items.map((item) => item.id)).toEqual([...ids].reverse())
    expect(all.items[0]?.sendAt).toBeDefined()
    expect(all.nextCursor).toBeUndefined()

    // Pages of two, the cursor carrying on exactly where the last page ended.
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await readJson<{ items: { id: string }[]; nextCursor?: string }>(
        await call(
          'GET',
          `/api/v1/messages?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          undefined,
          lister.apiKey,
        ),
      )
      seen.push(...page.items.map((item) => item.id))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toEqual([...ids].reverse())

    const scheduled = await readJson<{ items: { id: string }[] }>(
      await call('GET', '/api/v1/messages?status=scheduled', undefined, lister.apiKey),
    )
    expect(scheduled.items.map((item) => item.id)).toEqual([ids[4]])
    const to = await readJson<{ items: { id: string }[] }>(
      await call('GET', '/api/v1/messages?to=LIST1@example.test', undefined, lister.apiKey),
    )
    expect(to.items.map((item) => item.id)).toEqual([ids[3], ids[1]])
    const future = await readJson<{ items: unknown[] }>(
      await call('GET', `/api/v1/messages?from=${encodeURIComponent(inHours(1))}`, undefined, lister.apiKey),
    )
    expect(future.items).toEqual([])

    // Another tenant's cursor finds nothing here; bad filters are 400s naming them.
    const foreign = await readJson<{ items: unknown[] }>(
      await call(
        'GET',
        `/api/v1/messages?cursor=${encodeMessageCursor(ids[2] ?? '')}`,
        undefined,
        other.apiKey,
      ),
    )
    expect(foreign.items).toEqual([])
    const bad = await call(
      'GET',
      '/api/v1/messages?status=lost&cursor=xyz&until=soon',
      undefined,
      lister.apiKey,
    )
    expect(bad.status).toBe(400)
    const paths = (await readJson<{ error: { details: { path: string }[] } }>(bad)).error.details.map(
      (d) => d.path,
    )
    expect(paths.sort()).toEqual(['cursor', 'status', 'until'])

    const sending = await seedApiKey(harness, { tenantId: lister.tenantId, scope: 'sending' })
    expect((await call('GET', '/api/v1/messages', undefined, sending.apiKey)).status).toBe(403)
  })
})

describe('POST /api/v1/messages/batch', () => {
  type Results = { results: { index: number; status: number; id?: string; error?: { details?: unknown } }[] }

  it('answers each item on its own: a bad address its own 400, the rest accepted (source batch)', async () => {
    const response = await call('POST', '/api/v1/messages/batch', {
      messages: [
        { to: 'b0@example.test', subject: 's', text: 't' },
        { to: 'not an address', subject: 's', text: 't' },
        { to: 'b2@example.test', template: 'otp', variables: { code: '123456' }, sendAt: inHours(1) },
        { to: 'b3@example.test', subject: 's', text: 't', sendAt: inHours(24 * 40) },
      ],
    })
    expect(response.status).toBe(200)
    const { results } = await readJson<Results>(response)
    expect(results.map((result) => [result.index, result.status])).toEqual([
      [0, 202],
      [1, 400],
      [2, 202],
      [3, 422],
    ])
    expect(JSON.stringify(results[1]?.error)).toContain('"to"')
    expect(await rowOf(results[0]?.id ?? '')).toMatchObject({ status: 'queued', source: 'batch' })
    expect(await rowOf(results[2]?.id ?? '')).toMatchObject({ status: 'scheduled', source: 'batch' })
    expect(await outboxOf(results[0]?.id ?? '')).toHaveLength(1)
  })

  it('a retry with the same Idempotency-Key answers the same results and writes nothing new', async () => {
    const key = `batch-${randomUUID()}`
    const body = {
      messages: [
        { to: 'r0@example.test', subject: 's', text: 't' },
        { to: 'r1@example.test', subject: 's', text: 't', idempotencyKey: `own-${key}` },
        { to: 'bad', subject: 's', text: 't' },
      ],
    }
    const send = () =>
      postMessagesBatch(
        new Request('http://127.0.0.1:3000/api/v1/messages/batch', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tenant.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify(body),
        }),
        deps.api,
      )
    const count = async () =>
      Number(
        (await harness.database.sql`select count(*) from messages where tenant_id = ${tenant.tenantId}`)[0]
          ?.count,
      )
    const first = await readJson<Results>(await send())
    const before = await count()
    const second = await readJson<Results>(await send())
    expect(second).toEqual(first)
    expect(await count()).toBe(before)
    expect(first.results.map((result) => result.status)).toEqual([202, 202, 400])
    const [own] = await harness.database.sql`select id from messages where idempotency_key = ${`own-${key}`}`
    expect(own?.id).toBe(first.results[1]?.id)
  })

  it('refuses 501 items naming messages, and an item over the plan gets its own 429', async () => {
    const many = Array.from({ length: 501 }, (_, i) => ({
      to: `m${i}@example.test`,
      subject: 's',
      text: 't',
    }))
    const tooMany = await call('POST', '/api/v1/messages/batch', { messages: many })
    expect(tooMany.status).toBe(400)
    const error = (await readJson<{ error: { details: { path: string }[] } }>(tooMany)).error
    expect(error.details.map((issue) => issue.path)).toEqual(['messages'])

    const tight = { plan: { ratePerSec: 1, burst: 1 }, horizonMs: 1_000 }
    const planned = routeDeps(harness, harness.apiDeps({ acceptPlan: { critical: tight, default: tight } }))
    const small = await seedTenant(harness, 'Small plan')
    const response = await callRoute(planned, 'POST', '/api/v1/messages/batch', {
      token: small.apiKey,
      body: { messages: many.slice(0, 4) },
    })
    const { results } = await readJson<Results>(response)
    expect(results.map((result) => result.status)).toEqual([202, 202, 429, 429])
    expect(JSON.stringify(results[2]?.error)).toContain('"limit":"plan"')
  })

  it("counts items against the tenant's daily quota in order: the ones past it get their own 429 quota", async () => {
    const quoted = await seedTenant(harness, 'Quota of two')
    await harness.database.sql`update tenants set quota_daily = 2 where id = ${quoted.tenantId}`
    const messages = Array.from({ length: 3 }, (_, i) => ({
      to: `q${i}@example.test`,
      subject: 's',
      text: 't',
    }))
    const response = await call('POST', '/api/v1/messages/batch', { messages }, quoted.apiKey)
    const { results } = await readJson<Results>(response)
    expect(results.map((result) => result.status)).toEqual([202, 202, 429])
    expect(JSON.stringify(results[2]?.error)).toContain('"limit":"quota"')
    const [row] = await harness.database
      .sql`select count(*)::int as n from messages where tenant_id = ${quoted.tenantId}`
    expect(row?.n).toBe(2)
  })
})
