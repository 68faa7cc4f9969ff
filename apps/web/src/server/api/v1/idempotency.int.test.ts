import { randomUUID } from 'node:crypto'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import { postMessage } from './post-message'

const env = setupTestEnvironment('web-idem')

let harness: WebHarness
let deps: ApiDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps()
  tenant = await seedTenant(harness)
})

afterAll(async () => {
  await harness?.close()
})

const post = (body: unknown, idempotencyKey: string, apiKey = tenant.apiKey) =>
  postMessage(
    jsonRequest('/api/v1/messages', { token: apiKey, body, headers: { 'idempotency-key': idempotencyKey } }),
    deps,
  )

async function rowsWithKey(key: string) {
  return harness.database.sql<{ id: string; tenant_id: string }[]>`
    select id, tenant_id from messages where idempotency_key = ${key}`
}

async function outboxRowsFor(ids: string[]) {
  return harness.database
    .sql`select id from outbox where payload->>'messageId' in ${harness.database.sql(ids)}`
}

describe('Idempotency-Key', () => {
  it('answers a sequential retry with the same message and says it is a replay', async () => {
    const key = `seq-${randomUUID()}`
    const body = { to: 'seq@example.test', template: 'otp', variables: { code: '111111' } }
    const first = await post(body, key)
    expect(first.status).toBe(202)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    // The same body with its keys in another order is the same request.
    const second = await post({ variables: { code: '111111' }, template: 'otp', to: 'seq@example.test' }, key)
    expect(second.status).toBe(202)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    const [a, b] = [await readJson(first), await readJson(second)]
    expect(b).toEqual(a)
    const rows = await rowsWithKey(key)
    expect(rows).toHaveLength(1)
    expect(await outboxRowsFor([a.id as string])).toHaveLength(1)
  })

  it('makes one message out of 20 concurrent requests with one key', async () => {
    const key = `conc-${randomUUID()}`
    const body = { to: 'conc@example.test', template: 'otp', variables: { code: '222222' } }
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(body, key)))
    const bodies = await Promise.all(responses.map((response) => readJson(response)))
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(202))
    const ids = new Set(bodies.map((item) => item.id))
    expect(ids.size).toBe(1)
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(
      1,
    )
    expect(await rowsWithKey(key)).toHaveLength(1)
    expect(await outboxRowsFor([...ids] as string[])).toHaveLength(1)
  })

  it('refuses the same key with another body: 422, no second row', async () => {
    const key = `reuse-${randomUUID()}`
    expect((await post({ to: 'r@example.test', subject: 'One', text: 'x' }, key)).status).toBe(202)
    const response = await post({ to: 'r@example.test', subject: 'Two', text: 'x' }, key)
    expect(response.status).toBe(422)
    expect((await readJson<{ error: { code: string } }>(response)).error.code).toBe('idempotency_key_reused')
    expect(await rowsWithKey(key)).toHaveLength(1)
  })

  it('refuses another body under 20 concurrent requests too: one row, the rest 202 or 422', async () => {
    const key = `conc-reuse-${randomUUID()}`
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post({ to: 'cr@example.test', subject: `S${index % 2}`, text: 'x' }, key),
      ),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.every((status) => status === 202 || status === 422)).toBe(true)
    expect(statuses).toContain(422)
    expect(await rowsWithKey(key)).toHaveLength(1)
  })

  it('keeps keys per tenant: another tenant may use the same key', async () => {
    const other = await seedTenant(harness, 'Other')
    const key = `shared-${randomUUID()}`
    const body = { to: 'x@example.test', subject: 'Hi', text: 'x' }
    const mine = await readJson(await post(body, key))
    const theirs = await readJson(await post(body, key, other.apiKey))
    expect(theirs.id).not.toBe(mine.id)
    expect(new Set((await rowsWithKey(key)).map((row) => row.tenant_id))).toEqual(
      new Set([tenant.tenantId, other.tenantId]),
    )
  })

  it('releases a key after 24 hours: a new message, the old row keeps no key', async () => {
    const key = `old-${randomUUID()}`
    const body = { to: 'old@example.test', subject: 'Hi', text: 'x' }
    const first = await readJson(await post(body, key))
    await harness.database.sql`
      update messages set created_at = now() - interval '25 hours' where id = ${first.id as string}`
    const second = await post(body, key)
    expect(second.status).toBe(202)
    expect(second.headers.get('idempotent-replayed')).toBeNull()
    const fresh = await readJson(second)
    expect(fresh.id).not.toBe(first.id)
    const rows = await rowsWithKey(key)
    expect(rows.map((row) => row.id)).toEqual([fresh.id])
    const [old] = await harness.database
      .sql`select idempotency_key from messages where id = ${first.id as string}`
    expect(old?.idempotency_key).toBeNull()
  })
})
