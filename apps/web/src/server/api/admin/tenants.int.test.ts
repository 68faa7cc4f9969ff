import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  TEST_ADMIN_TOKEN,
  type WebHarness,
} from '../../test-support/harness'
import { postMessage } from '../v1/post-message'
import { postTenant } from './create-tenant'
import { getQueueStats } from './queue-stats'
import { postResumeTenant } from './resume-tenant'
import { getTenantUsage } from './tenant-usage'
import { patchTenant } from './update-tenant'

const env = setupTestEnvironment('web-admin')

let harness: WebHarness

beforeAll(() => {
  harness = createWebHarness(env)
})

afterAll(async () => {
  await harness?.close()
})

const createTenant = (body: unknown, token: string | null = TEST_ADMIN_TOKEN) =>
  postTenant(jsonRequest('/api/admin/tenants', { token, body }), harness.adminDeps())

const patch = (id: string, body: unknown) =>
  patchTenant(
    jsonRequest(`/api/admin/tenants/${id}`, { method: 'PATCH', token: TEST_ADMIN_TOKEN, body }),
    id,
    harness.adminDeps(),
  )

describe('admin authentication', () => {
  it.each([
    ['no token', null, /Missing admin token/],
    ['a wrong token', 'not-the-admin-token-at-all', /Invalid admin token/],
    ['a token of another length', 'x', /Invalid admin token/],
  ])('refuses %s with 401', async (_label, token, message) => {
    const response = await createTenant({ name: 'Nope' }, token)
    expect(response.status).toBe(401)
    expect((await readJson<{ error: { message: string } }>(response)).error.message).toMatch(message)
  })

  it('is closed when ADMIN_TOKEN is not set', async () => {
    const request = jsonRequest('/api/admin/queues', { token: TEST_ADMIN_TOKEN })
    const response = await getQueueStats(request, { ...harness.adminDeps(), adminToken: undefined })
    expect(response.status).toBe(401)
  })
})

describe('POST /api/admin/tenants', () => {
  it('creates a tenant with default plan and a first API key that works at once', async () => {
    const response = await createTenant({ name: '  Initech  ' })
    expect(response.status).toBe(201)
    const body = await readJson<{ id: string; apiKey: string }>(response)
    expect(body).toEqual({ id: expect.any(String), apiKey: expect.stringMatching(/^fl_/) })

    const [tenant] = await harness.database
      .sql`select name, rate_per_sec, burst, weight from tenants where id = ${body.id}`
    expect(tenant).toEqual({ name: 'Initech', rate_per_sec: 10, burst: 20, weight: 1 })
    const [key] = await harness.database.sql`select key_hash from api_keys where tenant_id = ${body.id}`
    expect(key?.key_hash).not.toContain(body.apiKey)

    const sent = await postMessage(
      jsonRequest('/api/v1/messages', {
        token: body.apiKey,
        body: { to: 'a@b.test', subject: 'Hi', text: 'x' },
      }),
      harness.apiDeps(),
    )
    expect(sent.status).toBe(202)
    const [audit] = await harness.database
      .sql`select actor, action from admin_audit_log where target_id = ${body.id}`
    expect(audit).toEqual({ actor: 'admin-token', action: 'tenant.create' })
  })

  it('takes a plan', async () => {
    const { id } = await readJson<{ id: string }>(
      await createTenant({ name: 'Big', plan: { ratePerSec: 200, burst: 400, weight: 5 } }),
    )
    const [tenant] = await harness.database
      .sql`select rate_per_sec, burst, weight from tenants where id = ${id}`
    expect(tenant).toEqual({ rate_per_sec: 200, burst: 400, weight: 5 })
  })

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'X', plan: { ratePerSec: 0 } }, 'plan.ratePerSec'],
    [{ name: 'X', plan: { burst: -5 } }, 'plan.burst'],
    [{ name: 'X', plan: { weight: 1.5 } }, 'plan.weight'],
    [{ name: 'X', plan: { speed: 3 } }, 'plan.speed'],
  ])('refuses %o naming %s', async (body, path) => {
    const response = await createTenant(body)
    expect(response.status).toBe(400)
    const error = (await readJson<{ error: { details: { path: string }[] } }>(response)).error
    expect(error.details.map((issue) => issue.path)).toContain(path)
  })
})

describe('PATCH /api/admin/tenants/:id', () => {
  it('changes the plan, partly, and records before and after', async () => {
    const { id } = await readJson<{ id: string }>(await createTenant({ name: 'Changing' }))
    const response = await patch(id, { plan: { ratePerSec: 50, weight: 3 } })
    expect(response.status).toBe(200)
    expect(await readJson(response)).toMatchObject({
      id,
      name: 'Changing',
      plan: { ratePerSec: 50, burst: 20, weight: 3 },
    })
    const [audit] = await harness.database.sql`
      select details from admin_audit_log where target_id = ${id} and action = 'tenant.plan.update'`
    // The plan's fields stay at the top of before and after; its name and the overrides sit beside them.
    expect(audit?.details).toMatchObject({
      before: { ratePerSec: 10, burst: 20, weight: 1, planName: 'standard', overrides: {} },
      after: {
        ratePerSec: 50,
        burst: 20,
        weight: 3,
        planName: 'standard',
        overrides: { ratePerSec: 50, weight: 3 },
      },
    })
  })

  it('approves a held tenant once, audited; approval cannot be withdrawn', async () => {
    const { id } = await readJson<{ id: string }>(await createTenant({ name: 'Held' }))
    await harness.database.sql`update tenants set approved_at = null where id = ${id}`
    const response = await patch(id, { approved: true })
    expect(response.status).toBe(200)
    expect(await readJson(response)).toMatchObject({ id, approved: true, platform: false })
    expect((await patch(id, { approved: true })).status).toBe(200)
    const audits = await harness.database.sql`
      select actor from admin_audit_log where target_id = ${id} and action = 'tenant.approve'`
    expect(audits).toEqual([{ actor: 'admin-token' }])
    const refused = await patch(id, { approved: false })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(await readJson(refused))).toContain('approved')
  })

  it('pins a tenant to a dedicated egress pool and back, audited; an unknown pool is refused naming the pools', async () => {
    const { id } = await readJson<{ id: string }>(await createTenant({ name: 'Pinned' }))
    const withPools = (body: unknown) =>
      patchTenant(
        jsonRequest(`/api/admin/tenants/${id}`, { method: 'PATCH', token: TEST_ADMIN_TOKEN, body }),
        id,
        { ...harness.adminDeps(), egressPools: ['acme-dedicated', 'bulk-b'] },
      )
    const pinned = await withPools({ egressPool: 'acme-dedicated' })
    expect(pinned.status).toBe(200)
    expect(await readJson(pinned)).toMatchObject({ id, egressPool: 'acme-dedicated' })
    const unknown = await withPools({ egressPool: 'nowhere' })
    expect(unknown.status).toBe(400)
    expect(JSON.stringify(await readJson(unknown))).toContain(
      'must be one of acme-dedicated, bulk-b (EGRESS_POOLS), or null for the shared pool',
    )
    expect(await readJson(await withPools({ egressPool: null }))).toMatchObject({ egressPool: null })
    const audits = await harness.database.sql`
      select details from admin_audit_log where target_id = ${id} and action = 'tenant.egress_pool.update'
      order by created_at`
    expect(audits.map((row) => row.details)).toEqual([
      { before: null, after: 'acme-dedicated' },
      { before: 'acme-dedicated', after: null },
    ])
    // Without EGRESS_POOLS there is nothing to pin to.
    const none = await patch(id, { egressPool: 'acme-dedicated' })
    expect(JSON.stringify(await readJson(none))).toContain('no egress pools are configured (EGRESS_POOLS)')
  })

  it('answers 404 for an unknown or malformed id and 400 for an empty plan', async () => {
    expect((await patch('00000000-0000-4000-8000-000000000001', { plan: { weight: 2 } })).status).toBe(404)
    expect((await patch('nope', { plan: { weight: 2 } })).status).toBe(404)
    const { id } = await readJson<{ id: string }>(await createTenant({ name: 'Empty' }))
    expect((await patch(id, { plan: {} })).status).toBe(400)
    expect((await patch(id, {})).status).toBe(400)
  })
})

describe('POST /api/admin/tenants/:id/resume', () => {
  const resume = (id: string, body: unknown) =>
    postResumeTenant(
      jsonRequest(`/api/admin/tenants/${id}/resume`, { token: TEST_ADMIN_TOKEN, body }),
      id,
      harness.adminDeps(),
    )

  it('lifts the guardrail’s pause with the admin’s reason, on both audit logs; a reason is required, and a tenant at ok has nothing to resume', async () => {
    const { id } = await readJson<{ id: string }>(await createTenant({ name: 'Bought a list' }))
    await harness.database.sql`
      update tenants set reputation_stage = 'pause', reputation_changed_at = now(),
        reputation_reason = '7 % hard bounces over 24 h (1,000 sent; pause at 6 %)'
      where id = ${id}`

    const [paused] = await harness.database.sql`
      insert into campaigns (tenant_id, name, subject, html, status)
      values (${id}, 'Digest', 'News', '<p>News</p>', 'paused') returning id`
    const noReason = await resume(id, { reason: '   ' })
    expect(noReason.status).toBe(400)
    expect(JSON.stringify(await readJson(noReason))).toContain('reason: must say why')

    const resumed = await resume(id, { reason: 'List cleaned with the customer; bounces were one import' })
    expect(resumed.status).toBe(200)
    const body = await readJson<{ reputation: { stage: string; reason: string; resumedAt: string | null } }>(
      resumed,
    )
    expect(body.reputation).toMatchObject({
      stage: 'ok',
      reason: 'List cleaned with the customer; bounces were one import',
    })
    expect(body.reputation.resumedAt).not.toBeNull()
    // Its paused campaign sends again.
    const [campaign] = await harness.database.sql`select status from campaigns where id = ${paused?.id}`
    expect(campaign?.status).toBe('sending')
    const admin = await harness.database.sql`
      select actor, reason, details from admin_audit_log where target_id = ${id} and action = 'tenant.reputation.resume'`
    expect(admin).toEqual([
      {
        actor: 'admin-token',
        reason: 'List cleaned with the customer; bounces were one import',
        details: {
          from: 'pause',
          to: 'ok',
          finding: '7 % hard bounces over 24 h (1,000 sent; pause at 6 %)',
        },
      },
    ])
    const own = await harness.database.sql`
      select actor, reason from tenant_audit_log where tenant_id = ${id} and action = 'tenant.reputation.resume'`
    expect(own).toEqual([
      {
        actor: 'Fairlane platform (admin-token)',
        reason: 'List cleaned with the customer; bounces were one import',
      },
    ])

    const again = await resume(id, { reason: 'twice' })
    expect(again.status).toBe(409)
    expect(JSON.stringify(await readJson(again))).toContain('not paused or slowed')
  })
})

describe('GET /api/admin/queues', () => {
  it('reports each lane’s counts and the oldest waiting job’s age, plus the dead letters', async () => {
    const queues = harness.queues
    const [critical] = queues.lanes.shardsOf('critical')
    if (!critical) throw new Error('no critical queue')
    await critical.add('send', { v: 1 }, { jobId: 'old', timestamp: Date.now() - 5_000 })
    await critical.add('send', { v: 1 }, { jobId: 'new' })
    await queues['dead-letter'].add('dead-letter', { v: 1 })
    const response = await getQueueStats(
      jsonRequest('/api/admin/queues', { token: TEST_ADMIN_TOKEN }),
      harness.adminDeps(),
    )
    expect(response.status).toBe(200)
    const body = await readJson<Record<string, Record<string, number> | number>>(response)
    expect(Object.keys(body).sort()).toEqual(['bulk', 'critical', 'deadLetter', 'default'])
    expect(body.critical).toMatchObject({ waiting: 2, active: 0, delayed: 0, failed: 0, completed: 0 })
    expect((body.critical as Record<string, number>).oldestWaitingAgeMs).toBeGreaterThanOrEqual(5_000)
    expect(body.bulk).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
      failed: 0,
      completed: 0,
      oldestWaitingAgeMs: 0,
    })
    expect(body.deadLetter).toBe(1)
  })
})

describe('GET /api/admin/tenants/:id/usage', () => {
  it("answers the tenant's usage report with its quota's use, as the tenant's own API does; 404 for another id", async () => {
    const { id, apiKey } = await readJson<{ id: string; apiKey: string }>(
      await createTenant({ name: 'Usage Co' }),
    )
    await harness.database.sql`update tenants set quota_daily = 50 where id = ${id}`
    const sent = await postMessage(
      jsonRequest('/api/v1/messages', { token: apiKey, body: { to: 'u@b.test', subject: 'Hi', text: 'x' } }),
      harness.apiDeps(),
    )
    expect(sent.status).toBe(202)
    const usage = (tenantId: string) =>
      getTenantUsage(
        jsonRequest(`/api/admin/tenants/${tenantId}/usage`, { token: TEST_ADMIN_TOKEN }),
        tenantId,
        harness.adminDeps(),
      )
    const response = await usage(id)
    expect(response.status).toBe(200)
    const report = await readJson<{
      days: { accepted: number }[]
      quota?: { daily?: number; usedToday: number }
    }>(response)
    expect(report.days.at(-1)?.accepted).toBe(1)
    expect(report.quota).toMatchObject({ daily: 50, usedToday: 1 })
    expect((await usage('00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect((await usage('not-a-uuid')).status).toBe(404)
  })
})
