import { randomUUID } from 'node:crypto'
import type { Lane } from '@fairlane/core'
import type { DeadLetterPayload } from '@fairlane/queue'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  TEST_ADMIN_TOKEN,
  type WebHarness,
} from '../../test-support/harness'
import { postMessage } from '../v1/post-message'
import { discardDeadLetter } from './discard-dead-letter'
import { listDeadLetters } from './list-dead-letters'
import { replayDeadLetter } from './replay-dead-letter'

const env = setupTestEnvironment('web-dlq')

let harness: WebHarness
let tenant: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  tenant = await seedTenant(harness)
})

beforeEach(async () => {
  await harness.queues['dead-letter'].obliterate({ force: true })
})

afterAll(async () => {
  await harness?.close()
})

/** A message accepted through the API, then failed as the worker would leave it. */
async function failedMessage(status = 'failed'): Promise<{ id: string; lane: Lane }> {
  const response = await postMessage(
    jsonRequest('/api/v1/messages', {
      token: tenant.apiKey,
      body: { to: `${randomUUID()}@example.test`, template: 'otp', variables: { code: '123456' } },
    }),
    harness.apiDeps(),
  )
  const { id, lane } = await readJson<{ id: string; lane: Lane }>(response)
  await harness.database.sql`
    update messages set status = ${status}, attempts = 1, last_error = '550 5.1.1 no such user', failed_at = now()
    where id = ${id}`
  return { id, lane }
}

/** A dead letter as the worker writes it (`deadLetterPayload` of @fairlane/queue). */
async function deadLetter(message: { id: string; lane: Lane }, overrides: Partial<DeadLetterPayload> = {}) {
  const payload: DeadLetterPayload = {
    v: 1,
    queue: message.lane,
    jobId: `m-${message.id}`,
    messageId: message.id,
    tenantId: tenant.tenantId,
    error: '550 5.1.1 no such user',
    attempts: 1,
    failedAt: new Date().toISOString(),
    ...overrides,
  }
  const job = await harness.queues['dead-letter'].add('dead-letter', payload, {
    jobId: `dlq-${message.id}-${randomUUID().slice(0, 8)}`,
  })
  return String(job.id)
}

const admin = (path: string, method = 'GET', body?: unknown) =>
  jsonRequest(path, { method, token: TEST_ADMIN_TOKEN, body })

const replay = (id: string, body?: unknown) =>
  replayDeadLetter(admin(`/api/admin/dlq/${id}/replay`, 'POST', body), id, harness.adminDeps())

async function outboxFor(messageId: string) {
  return harness.database
    .sql`select payload from outbox where payload->>'messageId' = ${messageId} order by id`
}

describe('GET /api/admin/dlq', () => {
  it('lists dead letters newest first, filtered and paged', async () => {
    const one = await failedMessage()
    const two = await failedMessage()
    const idOne = await deadLetter(one, { failedAt: '2026-01-01T00:00:00.000Z' })
    const idTwo = await deadLetter(two, { failedAt: '2026-01-02T00:00:00.000Z', queue: 'default' })
    const otherTenant = randomUUID()
    await deadLetter(two, { tenantId: otherTenant, failedAt: '2026-01-03T00:00:00.000Z' })

    const all = await listDeadLetters(admin('/api/admin/dlq'), harness.adminDeps())
    expect(all.status).toBe(200)
    expect(all.headers.get('x-total-count')).toBe('3')
    const items = await readJson<Record<string, unknown>[]>(all)
    expect(items[2]).toEqual({
      id: idOne,
      queue: 'critical',
      messageId: one.id,
      tenantId: tenant.tenantId,
      error: '550 5.1.1 no such user',
      attempts: 1,
      failedAt: '2026-01-01T00:00:00.000Z',
      laneJobId: `m-${one.id}`,
    })

    const mine = await readJson<{ id: string }[]>(
      await listDeadLetters(admin(`/api/admin/dlq?tenantId=${tenant.tenantId}`), harness.adminDeps()),
    )
    expect(mine.map((item) => item.id)).toEqual([idTwo, idOne])
    const defaults = await readJson<{ id: string }[]>(
      await listDeadLetters(admin('/api/admin/dlq?queue=default'), harness.adminDeps()),
    )
    expect(defaults.map((item) => item.id)).toEqual([idTwo])
    const paged = await readJson<{ id: string }[]>(
      await listDeadLetters(admin('/api/admin/dlq?limit=1&offset=1'), harness.adminDeps()),
    )
    expect(paged.map((item) => item.id)).toEqual([idTwo])
  })

  it('pages through a large queue reading only the page from Redis, newest first', async () => {
    const message = await failedMessage()
    const ids: string[] = []
    for (let index = 0; index < 120; index++)
      ids.push(await deadLetter(message, { error: `550 no. ${index}` }))
    const newestFirst = [...ids].reverse()
    const real = harness.adminDeps()
    let jobsRead = 0
    const deadLetters = real.queues()['dead-letter']
    const counting = new Proxy(deadLetters, {
      get(target, property, receiver) {
        if (property !== 'getJobs') return Reflect.get(target, property, receiver)
        return async (...args: Parameters<typeof target.getJobs>) => {
          const jobs = await target.getJobs(...args)
          jobsRead += jobs.length
          return jobs
        }
      },
    })
    const deps = { ...real, queues: () => ({ ...real.queues(), 'dead-letter': counting }) }
    const seen: string[] = []
    for (let offset = 0; offset < 120; offset += 50) {
      jobsRead = 0
      const response = await listDeadLetters(admin(`/api/admin/dlq?limit=50&offset=${offset}`), deps)
      expect(response.headers.get('x-total-count')).toBe('120')
      const page = await readJson<{ id: string }[]>(response)
      expect(page).toHaveLength(Math.min(50, 120 - offset))
      expect(jobsRead).toBe(page.length)
      seen.push(...page.map((item) => item.id))
    }
    expect(seen).toEqual(newestFirst)

    // A filter scans in chunks and still answers the page and the total of the matches.
    const filtered = await listDeadLetters(admin('/api/admin/dlq?error=no.%2011&limit=5'), deps)
    expect(filtered.headers.get('x-total-count')).toBe('11') // 11, 110 … 119
    expect((await readJson<{ id: string }[]>(filtered)).map((item) => item.id)).toEqual(
      newestFirst.slice(0, 5),
    )
  })

  it('refuses bad filters with 400', async () => {
    for (const query of ['limit=0', 'limit=x', 'queue=nope', 'tenantId=nope', 'colour=red']) {
      const response = await listDeadLetters(admin(`/api/admin/dlq?${query}`), harness.adminDeps())
      expect(response.status, query).toBe(400)
    }
  })
})

describe('POST /api/admin/dlq/:id/replay', () => {
  it('requeues the message with the next generation, writes the outbox and audit rows, removes the dead letter', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message)
    const response = await replay(id, { reason: 'mailbox fixed' })
    expect(response.status).toBe(200)
    expect(await readJson(response)).toEqual({
      id,
      messageId: message.id,
      status: 'queued',
      lane: 'critical',
      generation: 1,
    })

    const [row] = await harness.database
      .sql`select status, generation, last_error, queued_at from messages where id = ${message.id}`
    expect(row).toMatchObject({ status: 'queued', generation: 1, last_error: '550 5.1.1 no such user' })
    const outbox = await outboxFor(message.id)
    expect(outbox.map((entry) => entry.payload)).toEqual([
      { v: 1, messageId: message.id, tenantId: tenant.tenantId, lane: 'critical', generation: 0 },
      { v: 1, messageId: message.id, tenantId: tenant.tenantId, lane: 'critical', generation: 1 },
    ])
    const [audit] = await harness.database.sql`
      select actor, action, target_type, target_id, reason, details from admin_audit_log where action = 'dlq.replay'`
    expect(audit).toMatchObject({
      actor: 'admin-token',
      target_type: 'message',
      target_id: message.id,
      reason: 'mailbox fixed',
      details: { dlqJobId: id, queue: 'critical' },
    })
    expect(await harness.queues['dead-letter'].getJob(id)).toBeUndefined()
    expect((await replay(id)).status).toBe(404)
  })

  it('refuses to replay a message that was sent: 409, nothing written, the dead letter kept', async () => {
    const message = await failedMessage('sent')
    const id = await deadLetter(message)
    const response = await replay(id)
    expect(response.status).toBe(409)
    expect((await readJson<{ error: { message: string } }>(response)).error.message).toMatch(/is sent/)
    expect(await outboxFor(message.id)).toHaveLength(1)
    expect(await harness.queues['dead-letter'].getJob(id)).toBeDefined()
  })

  it('publishes once when the same dead letter, or two of one message, are replayed at once', async () => {
    const message = await failedMessage()
    const first = await deadLetter(message)
    const second = await deadLetter(message)
    const responses = await Promise.all([replay(first), replay(first), replay(second), replay(second)])
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.every((status) => [200, 404, 409].includes(status))).toBe(true)
    const generations = (await outboxFor(message.id)).map(
      (entry) => (entry.payload as { generation: number }).generation,
    )
    expect(generations).toEqual([0, 1])
    const [audits] = await harness.database.sql`
      select count(*)::int as count from admin_audit_log where action = 'dlq.replay' and target_id = ${message.id}`
    expect(audits?.count).toBe(1)
  })

  it('refuses to replay a message whose body the retention removed: 409, nothing written', async () => {
    const message = await failedMessage()
    await harness.database.sql`
      update messages set html = null, text = null, variables = null, body_removed_at = now() where id = ${message.id}`
    const id = await deadLetter(message)
    const response = await replay(id, { reason: 'try again' })
    expect(response.status).toBe(409)
    expect(JSON.stringify(await readJson(response))).toContain('body was removed by the retention')
    expect(await outboxFor(message.id)).toHaveLength(1)
    expect(await harness.queues['dead-letter'].getJob(id)).toBeDefined()
  })

  it('answers 404 for an unknown dead letter and 401 without the token', async () => {
    expect((await replay('no-such-job')).status).toBe(404)
    const anonymous = jsonRequest('/api/admin/dlq/x/replay', { method: 'POST' })
    expect((await replayDeadLetter(anonymous, 'x', harness.adminDeps())).status).toBe(401)
  })
})

describe('DELETE /api/admin/dlq/:id', () => {
  it('removes the dead letter, audited, and leaves the message failed', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message)
    const response = await discardDeadLetter(admin(`/api/admin/dlq/${id}`, 'DELETE'), id, harness.adminDeps())
    expect(response.status).toBe(200)
    expect(await readJson(response)).toEqual({ id, discarded: true })
    expect(await harness.queues['dead-letter'].getJob(id)).toBeUndefined()
    const [row] = await harness.database.sql`select status from messages where id = ${message.id}`
    expect(row?.status).toBe('failed')
    const [audit] = await harness.database.sql`
      select actor, target_id, details from admin_audit_log where action = 'dlq.discard' and target_id = ${message.id}`
    expect(audit).toMatchObject({ actor: 'admin-token', details: { dlqJobId: id } })
    const again = await discardDeadLetter(admin(`/api/admin/dlq/${id}`, 'DELETE'), id, harness.adminDeps())
    expect(again.status).toBe(404)
  })
})
