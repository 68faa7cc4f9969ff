import { randomUUID } from 'node:crypto'
import type { Lane } from '@fairlane/core'
import { createTokenBuckets, encodeGovernorPeriod, governorKeys } from '@fairlane/fairness'
import type { DeadLetterPayload } from '@fairlane/queue'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  TEST_ADMIN_TOKEN,
  TEST_APP_ORIGIN,
  type WebHarness,
} from '../../test-support/harness'
import { postMessage } from '../v1/post-message'
import { listAudit } from './audit-log'
import { bulkReplayDeadLetters } from './bulk-dead-letters'
import { getDeadLetter } from './dead-letter-detail'
import { discardDeadLetter } from './discard-dead-letter'
import { getFairness } from './fairness'
import { listDeadLetters } from './list-dead-letters'
import { listTenants } from './list-tenants'
import { getOverview } from './overview'
import { replayDeadLetter } from './replay-dead-letter'
import { getTenantHistory } from './tenant-history'
import { patchTenant } from './update-tenant'

const env = setupTestEnvironment('web-admin-console')

let harness: WebHarness
let tenant: Awaited<ReturnType<typeof seedTenant>>
let admin: { email: string; cookie: string }

beforeAll(async () => {
  harness = createWebHarness(env)
  tenant = await seedTenant(harness, 'Console Tenant')
  admin = await harness.signIn({ platformAdmin: true })
})

beforeEach(async () => {
  await harness.queues['dead-letter'].obliterate({ force: true })
})

afterAll(async () => {
  await harness?.close()
})

/** As the console calls: the admin's session cookie, from the app's own origin. */
const asAdmin = (path: string, method = 'GET', body?: unknown) =>
  jsonRequest(path, { method, body, headers: { cookie: admin.cookie, origin: TEST_APP_ORIGIN } })

const withToken = (path: string, method = 'GET', body?: unknown) =>
  jsonRequest(path, { method, token: TEST_ADMIN_TOKEN, body })

type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } }

async function failedMessage(template = 'otp'): Promise<{ id: string; lane: Lane }> {
  const response = await postMessage(
    jsonRequest('/api/v1/messages', {
      token: tenant.apiKey,
      body: { to: `${randomUUID()}@example.test`, template, variables: { code: '987654' } },
    }),
    harness.apiDeps(),
  )
  const { id, lane } = await readJson<{ id: string; lane: Lane }>(response)
  await harness.database.sql`
    update messages set status = 'failed', attempts = 3, last_error = '550 5.1.1 no such user', failed_at = now()
    where id = ${id}`
  return { id, lane }
}

async function deadLetter(message: { id: string; lane: Lane }, overrides: Partial<DeadLetterPayload> = {}) {
  const payload: DeadLetterPayload = {
    v: 1,
    queue: message.lane,
    jobId: `m-${message.id}`,
    messageId: message.id,
    tenantId: tenant.tenantId,
    error: '550 5.1.1 no such user',
    attempts: 3,
    failedAt: new Date().toISOString(),
    ...overrides,
  }
  const job = await harness.queues['dead-letter'].add('dead-letter', payload, {
    jobId: `dlq-${message.id}-${randomUUID().slice(0, 8)}`,
  })
  return String(job.id)
}

/** What a refused replay must leave alone. */
async function snapshot(messageId: string) {
  const [message] = await harness.database
    .sql`select status, generation, queued_at from messages where id = ${messageId}`
  const [outbox] = await harness.database
    .sql`select count(*)::int as n from outbox where payload->>'messageId' = ${messageId}`
  const [audit] = await harness.database
    .sql`select count(*)::int as n from admin_audit_log where target_id = ${messageId}`
  return { message, outbox: outbox?.n, audit: audit?.n }
}

const replay = (id: string, body?: unknown) =>
  replayDeadLetter(asAdmin(`/api/admin/dlq/${id}/replay`, 'POST', body), id, harness.adminDeps())

describe('replaying dead letters: the refusals', () => {
  it('404 for an unknown id', async () => {
    const response = await replay('no-such-dead-letter', { reason: 'try' })
    expect(response.status).toBe(404)
    expect((await readJson<ErrorBody>(response)).error.message).toMatch(
      /No dead letter with id "no-such-dead-letter"/,
    )
  })

  it('404 naming the lane for a lane job’s id, with nothing changed', async () => {
    const message = await failedMessage()
    const laneJob = await harness.queues.lanes
      .queueFor('critical', tenant.tenantId)
      .add('send', { v: 1 }, { jobId: `m-${message.id}` })
    const before = await snapshot(message.id)
    const response = await replay(`m-${message.id}`, { reason: 'wrong id' })
    expect(response.status).toBe(404)
    expect((await readJson<ErrorBody>(response)).error.message).toMatch(
      /job of the critical lane, not a dead letter/,
    )
    expect(await snapshot(message.id)).toEqual(before)
    // Left waiting, it would age into the overview's critical-lane alert later in this file.
    await laneJob.remove()
  })

  it('409 for a message sent since it was dead-lettered: nothing written, the dead letter kept', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message)
    await harness.database.sql`update messages set status = 'sent', sent_at = now() where id = ${message.id}`
    const before = await snapshot(message.id)
    const response = await replay(id, { reason: 'customer asked' })
    expect(response.status).toBe(409)
    expect((await readJson<ErrorBody>(response)).error.message).toMatch(/is sent; only failed messages/)
    expect(await snapshot(message.id)).toEqual(before)
    expect(await harness.queues['dead-letter'].getJob(id)).toBeDefined()
  })

  it('409 for a dead letter naming another lane than its message’s: nothing written', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message, { queue: 'bulk' })
    const before = await snapshot(message.id)
    const response = await replay(id, { reason: 'mixed up' })
    expect(response.status).toBe(409)
    expect((await readJson<ErrorBody>(response)).error.message).toMatch(/from the bulk lane.*critical lane/)
    expect(await snapshot(message.id)).toEqual(before)
    expect(await harness.queues['dead-letter'].getJob(id)).toBeDefined()
  })

  it('400 naming the field for a reason that is not a string', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message)
    const response = await replay(id, { reason: 42 })
    expect(response.status).toBe(400)
    expect((await readJson<ErrorBody>(response)).error.details?.map((d) => d.path)).toEqual(['reason'])
  })
})

describe('replay and discard: the audit log', () => {
  it('records who, why and which for a session replay; the body-less bearer call still works', async () => {
    const first = await failedMessage()
    const firstId = await deadLetter(first)
    expect((await replay(firstId, { reason: 'mailbox exists again' })).status).toBe(200)
    const second = await failedMessage()
    const secondId = await deadLetter(second)
    const bare = await replayDeadLetter(
      withToken(`/api/admin/dlq/${secondId}/replay`, 'POST'),
      secondId,
      harness.adminDeps(),
    )
    expect(bare.status).toBe(200)
    const rows = await harness.database.sql`
      select actor, action, target_type, target_id, reason, details from admin_audit_log
      where target_id in ${harness.database.sql([first.id, second.id])} order by id`
    expect(rows).toEqual([
      {
        actor: admin.email,
        action: 'dlq.replay',
        target_type: 'message',
        target_id: first.id,
        reason: 'mailbox exists again',
        details: expect.objectContaining({ dlqJobId: firstId, queue: 'critical', tenantId: tenant.tenantId }),
      },
      expect.objectContaining({ actor: 'admin-token', target_id: second.id, reason: null }),
    ])
    const audit = await readJson<
      { actor: string; targetId: string; messageStatus: string; reason: string }[]
    >(await listAudit(asAdmin('/api/admin/audit?targetType=message&limit=5'), harness.adminDeps()))
    expect(audit[1]).toMatchObject({
      actor: admin.email,
      targetId: first.id,
      messageStatus: 'queued',
      reason: 'mailbox exists again',
    })
  })

  it('discards with the reason recorded', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message)
    const response = await discardDeadLetter(
      asAdmin(`/api/admin/dlq/${id}`, 'DELETE', { reason: 'address is a typo' }),
      id,
      harness.adminDeps(),
    )
    expect(response.status).toBe(200)
    const [audit] = await harness.database
      .sql`select actor, reason from admin_audit_log where action = 'dlq.discard' and target_id = ${message.id}`
    expect(audit).toEqual({ actor: admin.email, reason: 'address is a typo' })
  })

  it('bulk replay acts on each id on its own, requires a reason, and reports each outcome', async () => {
    const good = await failedMessage()
    const goodId = await deadLetter(good)
    const sent = await failedMessage()
    const sentId = await deadLetter(sent)
    await harness.database.sql`update messages set status = 'sent', sent_at = now() where id = ${sent.id}`

    const noReason = await bulkReplayDeadLetters(
      asAdmin('/api/admin/dlq/replay', 'POST', { ids: [goodId] }),
      harness.adminDeps(),
    )
    expect(noReason.status).toBe(400)
    expect((await readJson<ErrorBody>(noReason)).error.details).toEqual([
      { path: 'reason', message: 'is required: say why, it goes into the audit log' },
    ])
    for (const body of [
      { ids: [], reason: 'x' },
      { ids: 'x', reason: 'x' },
      { ids: [goodId], reason: '  ' },
    ]) {
      const response = await bulkReplayDeadLetters(
        asAdmin('/api/admin/dlq/replay', 'POST', body),
        harness.adminDeps(),
      )
      expect(response.status, JSON.stringify(body)).toBe(400)
    }
    expect((await snapshot(good.id)).audit).toBe(0)

    const response = await bulkReplayDeadLetters(
      asAdmin('/api/admin/dlq/replay', 'POST', { ids: [goodId, sentId, 'gone'], reason: 'relay fixed' }),
      harness.adminDeps(),
    )
    expect(response.status).toBe(200)
    const body = await readJson<{
      results: { id: string; ok: boolean; status: number }[]
      succeeded: number
    }>(response)
    expect(body.results.map(({ id, ok, status }) => ({ id, ok, status }))).toEqual([
      { id: goodId, ok: true, status: 200 },
      { id: sentId, ok: false, status: 409 },
      { id: 'gone', ok: false, status: 404 },
    ])
    expect(body.succeeded).toBe(1)
    expect((await snapshot(good.id)).message?.status).toBe('queued')
    expect((await snapshot(sent.id)).audit).toBe(0)
  })
})

describe('dead letters: list filter and detail', () => {
  it('filters by error text and shows the message without its secrets', async () => {
    const message = await failedMessage()
    const id = await deadLetter(message, { error: '550 5.1.1 Mailbox UNKNOWN here' })
    await deadLetter(await failedMessage(), { error: '451 4.7.1 greylisted' })
    const listed = await readJson<{ id: string }[]>(
      await listDeadLetters(asAdmin('/api/admin/dlq?error=mailbox%20unknown'), harness.adminDeps()),
    )
    expect(listed.map((item) => item.id)).toEqual([id])

    const detail = await getDeadLetter(asAdmin(`/api/admin/dlq/${id}`), id, harness.adminDeps())
    expect(detail.status).toBe(200)
    const text = await detail.text()
    expect(text).not.toContain('987654')
    const body = JSON.parse(text)
    expect(body).toMatchObject({
      id,
      queue: 'critical',
      attempts: 3,
      message: {
        id: message.id,
        tenantName: 'Console Tenant',
        template: 'otp',
        status: 'failed',
        variableNames: ['code'],
        lastError: '550 5.1.1 no such user',
      },
    })
    expect(body.message.failedAt).toEqual(expect.any(String))
  })
})

describe('PATCH /api/admin/tenants/:id: bad plans', () => {
  it.each([
    [{ ratePerSec: 0 }, 'plan.ratePerSec'],
    [{ ratePerSec: -5 }, 'plan.ratePerSec'],
    [{ ratePerSec: 2.5 }, 'plan.ratePerSec'],
    [{ burst: 0 }, 'plan.burst'],
    [{ burst: -1 }, 'plan.burst'],
    [{ weight: 0 }, 'plan.weight'],
    [{ weight: 1.5 }, 'plan.weight'],
    [{ weight: '2' }, 'plan.weight'],
    [{ ratePerSec: 20, weight: 0 }, 'plan.weight'],
  ])('refuses %o with 400 naming %s, changing nothing', async (plan, path) => {
    const before = await harness.database
      .sql`select rate_per_sec, burst, weight, updated_at from tenants where id = ${tenant.tenantId}`
    const response = await patchTenant(
      asAdmin(`/api/admin/tenants/${tenant.tenantId}`, 'PATCH', { plan }),
      tenant.tenantId,
      harness.adminDeps(),
    )
    expect(response.status).toBe(400)
    const body = await readJson<ErrorBody>(response)
    expect(body.error.details?.map((issue) => issue.path)).toEqual([path])
    const after = await harness.database
      .sql`select rate_per_sec, burst, weight, updated_at from tenants where id = ${tenant.tenantId}`
    expect(after).toEqual(before)
    const [audit] = await harness.database.sql`
      select count(*)::int as n from admin_audit_log where target_id = ${tenant.tenantId} and action = 'tenant.plan.update'`
    expect(audit?.n).toBe(0)
  })

  it('a good plan is changed and audited with the admin as actor', async () => {
    const other = await seedTenant(harness, 'Plan Tenant')
    const response = await patchTenant(
      asAdmin(`/api/admin/tenants/${other.tenantId}`, 'PATCH', {
        plan: { ratePerSec: 40, burst: 80, weight: 4 },
      }),
      other.tenantId,
      harness.adminDeps(),
    )
    expect(response.status).toBe(200)
    const [audit] = await harness.database
      .sql`select actor, details from admin_audit_log where target_id = ${other.tenantId}`
    expect(audit).toMatchObject({
      actor: admin.email,
      details: {
        before: { ratePerSec: 10, burst: 20, weight: 1, planName: 'standard' },
        after: { ratePerSec: 40, burst: 80, weight: 4, planName: 'standard' },
      },
    })
  })
})

/** Campaign mail as dispatch writes it, already sent `secondsAgo` before now. */
async function sentBulk(tenantId: string, count: number, secondsAgo: number) {
  const sql = harness.database.sql
  const [campaign] = await sql`
    insert into campaigns (tenant_id, name, subject, html, status, send_at)
    values (${tenantId}, 'Newsletter', 'News', '<p>hi</p>', 'sending', now() - interval '2 minutes')
    returning id`
  await sql`
    insert into messages (tenant_id, campaign_id, lane, status, to_address, sent_at)
    select ${tenantId}, ${campaign?.id}, 'bulk', 'sent', 'r' || n || '@example.test',
      now() - make_interval(secs => ${secondsAgo})
    from generate_series(1, ${count}) n`
  return campaign?.id as string
}

describe('GET /api/admin/tenants', () => {
  it('gives each tenant its plan, backlog, sends and deferrals of the last minute', async () => {
    const busy = await seedTenant(harness, 'Busy Tenant')
    await sentBulk(busy.tenantId, 7, 10)
    await sentBulk(busy.tenantId, 5, 120) // outside the minute
    const sql = harness.database.sql
    await sql`
      insert into messages (tenant_id, lane, status, to_address)
      select ${busy.tenantId}, 'bulk', 'pending', 'p' || n || '@example.test' from generate_series(1, 4) n`
    await sql`
      insert into messages (tenant_id, lane, status, to_address, queued_at)
      values (${busy.tenantId}, 'default', 'queued', 'q@example.test', now())`
    const buckets = createTokenBuckets(harness.redis, { prefix: `${env.queuePrefix}:` })
    for (let i = 0; i < 3; i++) await buckets.take(`bulk:${busy.tenantId}`, { ratePerSec: 1, burst: 1 })

    const response = await listTenants(asAdmin('/api/admin/tenants'), harness.adminDeps())
    expect(response.status).toBe(200)
    const rows = await readJson<Record<string, unknown>[]>(response)
    expect(rows.find((row) => row.id === busy.tenantId)).toEqual({
      id: busy.tenantId,
      name: 'Busy Tenant',
      planName: 'standard',
      plan: {
        ratePerSec: 10,
        burst: 20,
        weight: 1,
      },
      planOverrides: {},
      backlog: { pending: 4, queued: 1 },
      sentLastMinute: 7,
      deferredLastMinute: 2,
      approved: true,
      platform: false,
    })
  })

  it('pages by name with a cursor, every tenant once, counts for the page only', async () => {
    const names = Array.from({ length: 7 }, (_, index) => `Paged ${String.fromCharCode(71 - index)}`)
    const seeded = new Map<string, string>()
    for (const name of names) seeded.set((await seedTenant(harness, name)).tenantId, name)
    const seen: { id: string; name: string }[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const query: string = cursor ? `limit=3&cursor=${cursor}` : 'limit=3'
      const response = await listTenants(asAdmin(`/api/admin/tenants?${query}`), harness.adminDeps())
      expect(response.status).toBe(200)
      const page = await readJson<{ id: string; name: string }[]>(response)
      expect(page.length).toBeLessThanOrEqual(3)
      seen.push(...page)
      cursor = response.headers.get('x-next-cursor')
      pages++
    } while (cursor && pages < 50)
    // Every tenant exactly once, in name order across the pages.
    expect(new Set(seen.map((row) => row.id)).size).toBe(seen.length)
    expect(seen.filter((row) => seeded.has(row.id)).map((row) => row.name)).toEqual([...names].sort())
    const [all] = await harness.database.sql<{ n: number }[]>`select count(*)::int as n from tenants`
    expect(seen).toHaveLength(all?.n ?? -1)
    expect(pages).toBe(Math.ceil((all?.n ?? 0) / 3))

    for (const bad of ['limit=0', 'limit=501', 'cursor=nope', 'colour=red']) {
      const response = await listTenants(asAdmin(`/api/admin/tenants?${bad}`), harness.adminDeps())
      expect(response.status, bad).toBe(400)
    }
  })

  it('gives the last 30 rolled-up days of a tenant, 404 for an unknown one', async () => {
    const sql = harness.database.sql
    await sql`
      insert into tenant_daily_stats (tenant_id, day, sent, failed, suppressed, deferred) values
        (${tenant.tenantId}, current_date - 1, 120, 2, 1, 30),
        (${tenant.tenantId}, current_date - 45, 999, 0, 0, 0)`
    const response = await getTenantHistory(
      asAdmin(`/api/admin/tenants/${tenant.tenantId}/daily`),
      tenant.tenantId,
      harness.adminDeps(),
    )
    const body = await readJson<{ days: { sent: number }[] }>(response)
    expect(body.days).toEqual([
      { day: expect.any(String), sent: 120, failed: 2, suppressed: 1, deferred: 30 },
    ])
    const unknown = randomUUID()
    expect((await getTenantHistory(asAdmin('/x'), unknown, harness.adminDeps())).status).toBe(404)
  })
})

describe('GET /api/admin/overview', () => {
  it('counts sends per lane and minute, the outbox lag and turns red past a threshold', async () => {
    const sql = harness.database.sql
    await sql`delete from outbox`
    await sql`
      insert into messages (tenant_id, lane, status, to_address, sent_at)
      select ${tenant.tenantId}, 'critical', 'sent', 'c' || n || '@example.test', now() from generate_series(1, 3) n`
    const quiet = await readJson<{
      outboxLagMs: number
      alerts: { key: string }[]
      throughput: { minutes: Record<string, number>[] }
    }>(await getOverview(asAdmin('/api/admin/overview'), harness.adminDeps()))
    expect(quiet.outboxLagMs).toBe(0)
    expect(quiet.alerts).toEqual([])
    expect(quiet.throughput.minutes).toHaveLength(15)
    expect(quiet.throughput.minutes.at(-1)?.critical).toBeGreaterThanOrEqual(3)

    await sql`insert into outbox (topic, payload, created_at) values ('message.publish', '{}', now() - interval '40 seconds')`
    await deadLetter(await failedMessage())
    const red = await readJson<{ outboxLagMs: number; deadLetter: number; alerts: { key: string }[] }>(
      await getOverview(asAdmin('/api/admin/overview'), harness.adminDeps()),
    )
    expect(red.outboxLagMs).toBeGreaterThanOrEqual(40_000)
    expect(red.deadLetter).toBe(1)
    expect(red.alerts.map((alert) => alert.key)).toEqual(['outbox-lag', 'dead-letters'])
    await sql`delete from outbox`
  })

  it('shows the bulk governor: full speed when no worker steers, then its factor and 10 s steps', async () => {
    const deps = harness.adminDeps()
    const keys = governorKeys(deps.queuePrefix)
    await deps.redis.del(keys.factor, keys.history)
    type View = { bulkGovernor: { factor: number; steering: boolean; steps: unknown[] } }
    const idle = await readJson<View>(await getOverview(asAdmin('/api/admin/overview'), deps))
    expect(idle.bulkGovernor).toEqual({ factor: 1, steering: false, steps: [] })

    const start = Math.floor(Date.now() / 10_000) * 10_000
    const periods = [
      // Older than the chart's 15 minutes: left out.
      { t: start - 16 * 60_000, factor: 0.1, p95Ms: 900 },
      { t: start, factor: 1, p95Ms: 40 },
      { t: start + 1_000, factor: 0.5, p95Ms: 620 },
      { t: start + 10_000, factor: 0.6, p95Ms: null },
    ]
    await deps.redis.lpush(keys.history, ...periods.map(encodeGovernorPeriod))
    await deps.redis.set(keys.factor, '0.6', 'PX', 60_000)
    const steered = await readJson<View>(await getOverview(asAdmin('/api/admin/overview'), deps))
    expect(steered.bulkGovernor).toEqual({
      factor: 0.6,
      steering: true,
      steps: [
        { t: start, factor: 0.5, p95Ms: 620 },
        { t: start + 10_000, factor: 0.6, p95Ms: null },
      ],
    })
    await deps.redis.del(keys.factor, keys.history)
  })
})

describe('GET /api/admin/fairness', () => {
  it('gives per-tenant bulk rates, shares against weights, Jain’s index and time to first send', async () => {
    const big = await seedTenant(harness, 'Fair Big')
    const small = await seedTenant(harness, 'Fair Small')
    await harness.database.sql`update tenants set weight = 3 where id = ${big.tenantId}`
    const bigCampaign = await sentBulk(big.tenantId, 30, 20)
    await sentBulk(small.tenantId, 10, 20)
    const response = await getFairness(asAdmin('/api/admin/fairness?windowSeconds=60'), harness.adminDeps())
    expect(response.status).toBe(200)
    const body = await readJson<{
      series: { key: string; name: string }[]
      points: Record<string, number>[]
      shares: { tenantId: string; share: number; weightShare: number }[]
      jainIndex: number
      campaigns: { campaignId: string; firstSendMs: number | null }[]
    }>(response)
    expect(body.series.map((s) => s.name)).toEqual(expect.arrayContaining(['Fair Big', 'Fair Small']))
    const total = body.points.reduce((sum, point) => sum + (point[big.tenantId] ?? 0), 0)
    expect(total * 5).toBeCloseTo(30)
    const bigShare = body.shares.find((s) => s.tenantId === big.tenantId)
    const smallShare = body.shares.find((s) => s.tenantId === small.tenantId)
    // 30 sends against 10, weights 3 against 1: each got exactly its weight's part of the two.
    expect((bigShare?.share ?? 0) / (smallShare?.share ?? 1)).toBeCloseTo(3)
    expect((bigShare?.weightShare ?? 0) / (smallShare?.weightShare ?? 1)).toBeCloseTo(3)
    expect(body.jainIndex).toBeGreaterThan(0)
    expect(body.jainIndex).toBeLessThanOrEqual(1)
    const campaign = body.campaigns.find((c) => c.campaignId === bigCampaign)
    expect(campaign?.firstSendMs).toBeGreaterThan(90_000)

    const bad = await getFairness(asAdmin('/api/admin/fairness?windowSeconds=5'), harness.adminDeps())
    expect(bad.status).toBe(400)
    expect((await readJson<ErrorBody>(bad)).error.details?.[0]?.path).toBe('windowSeconds')
  })
})
