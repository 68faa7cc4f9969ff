import { checkReputation } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { readActiveTenants } from './bulk-backlog-tenants'
import { claimBulkRelease } from './pacer'
import { createReputationStore, readReputationCounts } from './reputation'

/**
 * The reputation guardrail in PostgreSQL: the week's feedback events counted per tenant, a stage
 * change with its audit entry, and the bulk pacer's reads honouring it (a paused tenant released
 * nothing and out of the active set; a slowed one planned at a quarter of its weight).
 */
const env = setupTestEnvironment('db-reputation')
const store = () =>
  createReputationStore(database.db, { appUrl: 'http://app.reputation.test', platformTenantName: 'Fairlane' })

let database: DatabaseHandle
const logged: string[] = []
const logger = {
  warn: (_fields: Record<string, unknown>, message: string) => logged.push(message),
  info: (_fields: Record<string, unknown>, message: string) => logged.push(message),
}

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'db-reputation-test' })
})

afterAll(async () => {
  await database?.close()
})

async function tenant(name: string, weight = 4): Promise<string> {
  const [row] = await database.db.execute<{ id: string }>(
    sql`insert into tenants (name, weight) values (${name}, ${weight}) returning id`,
  )
  if (!row) throw new Error('no tenant')
  return row.id
}

/** `sent` sent events and `hard` hard-bounce events of the tenant, `ago` before now. */
async function feedback(
  tenantId: string,
  counts: { sent: number; hard: number; complaints?: number; ago?: string },
) {
  const at = sql`now() - ${counts.ago ?? '1 hour'}::interval`
  await database.db.execute(sql`
    insert into message_events (tenant_id, message_id, type, detail, at)
    select ${tenantId}::uuid, gen_random_uuid(), 'sent', null, ${at} from generate_series(1, ${counts.sent})
    union all
    select ${tenantId}::uuid, gen_random_uuid(), 'bounced', '{"kind":"hard"}'::jsonb, ${at} from generate_series(1, ${counts.hard})
    union all
    select ${tenantId}::uuid, gen_random_uuid(), 'complained', null, ${at} from generate_series(1, ${counts.complaints ?? 0})`)
}

/** `count` pending bulk rows of the tenant (its active-set row made by the trigger). */
async function backlog(tenantId: string, count: number): Promise<void> {
  await database.db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address)
    select ${tenantId}::uuid, 'bulk', 'pending', 'r' || g || '@reputation.test' from generate_series(1, ${count}) g`)
}

async function campaign(tenantId: string, status: string): Promise<string> {
  const [row] = await database.db.execute<{ id: string }>(sql`
    insert into campaigns (tenant_id, name, subject, html, status)
    values (${tenantId}, 'Digest', 'News', '<p>News</p>', ${status}) returning id`)
  if (!row) throw new Error('no campaign')
  return row.id
}

async function campaignStatus(campaignId: string): Promise<string | undefined> {
  const [row] = await database.db.execute<{ status: string }>(
    sql`select status from campaigns where id = ${campaignId}`,
  )
  return row?.status
}

async function stageOf(tenantId: string) {
  const [row] = await database.db.execute<{ stage: string; reason: string | null }>(
    sql`select reputation_stage as stage, reputation_reason as reason from tenants where id = ${tenantId}`,
  )
  return row
}

describe('the reputation guardrail', () => {
  it('pauses a tenant over the pause threshold, with its reason on its audit log, and the pacer releases nothing of it', async () => {
    const bad = await tenant('bounces-7-percent')
    const good = await tenant('bounces-half-percent')
    const [owner] = await database.db.execute<{ id: string }>(sql`
      insert into users (id, name, email) values (gen_random_uuid()::text, 'Owner', 'owner@bounces-7.test') returning id`)
    await database.db.execute(
      sql`insert into memberships (tenant_id, user_id, role) values (${bad}, ${owner?.id}, 'owner')`,
    )
    await database.db.execute(sql`
      insert into webhook_endpoints (tenant_id, url, events, secret)
      values (${bad}, 'https://hooks.bad.test/in', array['tenant.reputation', 'email.sent'], 'whsec_dGVzdA==')`)
    await feedback(bad, { sent: 1_000, hard: 70 })
    await feedback(good, { sent: 1_000, hard: 5 })
    await backlog(bad, 20)
    await backlog(good, 20)
    const sending = await campaign(bad, 'sending')
    const goodSending = await campaign(good, 'sending')

    const { changes } = await checkReputation({ store: store(), logger })
    expect(changes.filter((change) => [bad, good].includes(change.tenantId))).toEqual([
      expect.objectContaining({ tenantId: bad, from: 'ok', to: 'pause' }),
    ])
    expect(await stageOf(bad)).toEqual({
      stage: 'pause',
      reason: '7 % hard bounces over 24 h (1,000 sent; pause at 6 %)',
    })
    expect((await stageOf(good))?.stage).toBe('ok')
    const audit = await database.db.execute<{
      action: string
      actor: string
      details: Record<string, unknown>
    }>(sql`select action, actor, details from tenant_audit_log where tenant_id = ${bad}`)
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'tenant.reputation.change',
        actor: 'Fairlane reputation guardrail',
        details: expect.objectContaining({ from: 'ok', to: 'pause' }),
      }),
    ])

    // Its endpoint hears of it, in the same transaction as the change.
    const hooks = await database.db.execute<{
      event_type: string
      payload: { data: Record<string, unknown> }
    }>(sql`select event_type, payload from webhook_deliveries where tenant_id = ${bad}`)
    expect(hooks).toEqual([
      {
        event_type: 'tenant.reputation',
        payload: expect.objectContaining({
          type: 'tenant.reputation',
          data: {
            stage: 'pause',
            previousStage: 'ok',
            reason: '7 % hard bounces over 24 h (1,000 sent; pause at 6 %)',
            window: 'day',
            signal: 'hard-bounces',
            rate: 0.07,
            threshold: 0.06,
            sent: 1000,
          },
        }),
      },
    ])

    // Its owner is told by mail: a queued message of the platform tenant, committed with the change.
    const notices = await database.db.execute<{
      subject: string
      text: string
      lane: string
      tenant: string
    }>(sql`
      select m.subject, m.text, m.lane, t.name as tenant from messages m join tenants t on t.id = m.tenant_id
      where m.to_address = 'owner@bounces-7.test'`)
    expect(notices).toEqual([
      expect.objectContaining({ subject: 'Your campaigns are paused', lane: 'default', tenant: 'Fairlane' }),
    ])
    expect(notices[0]?.text).toContain('7 % hard bounces over 24 h')
    expect(notices[0]?.text).toContain('http://app.reputation.test/dashboard')

    // The pacer: the paused tenant is not in the active set, and a quota for it releases nothing.
    const active = await readActiveTenants(database.db, { after: null })
    expect(active.tenants.map((row) => row.tenantId)).toContain(good)
    expect(active.tenants.map((row) => row.tenantId)).not.toContain(bad)
    const released = await claimBulkRelease(database.db, [
      { tenantId: bad, count: 5, after: null },
      { tenantId: good, count: 5, after: null },
    ])
    expect(released.map((row) => row.tenantId)).toEqual([good, good, good, good, good])
    const [pending] = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from messages where tenant_id = ${bad} and status = 'pending'`,
    )
    expect(pending?.n).toBe(20)

    // Its sending campaign reads paused; the other tenant's does not. A campaign whose dispatch ends
    // after the pause (sending now) reads paused on the next pass.
    expect(await campaignStatus(sending)).toBe('paused')
    expect(await campaignStatus(goodSending)).toBe('sending')
    const dispatchedLater = await campaign(bad, 'sending')

    // The pause holds on the next pass (only an admin resumes), whatever the rates say.
    await database.db.execute(sql`delete from message_events where tenant_id = ${bad}`)
    await checkReputation({ store: store(), logger })
    expect((await stageOf(bad))?.stage).toBe('pause')
    expect(await campaignStatus(dispatchedLater)).toBe('paused')
  })

  it('slows a tenant between the slow and pause thresholds: the pacer plans it at a quarter of its weight; it lifts when the rates fall', async () => {
    const slowed = await tenant('complaints-0-2-percent', 4)
    await feedback(slowed, { sent: 10_000, hard: 0, complaints: 20 })
    await backlog(slowed, 3)
    await checkReputation({ store: store(), logger })
    expect(await stageOf(slowed)).toEqual({
      stage: 'slow',
      reason: '0.2 % complaints over 24 h (10,000 sent; slow at 0.15 %)',
    })
    const active = await readActiveTenants(database.db, { after: null })
    expect(active.tenants.find((row) => row.tenantId === slowed)?.weight).toBe(1)

    // The complaints age out of both windows: back to ok, on the audit log too.
    await database.db.execute(
      sql`update message_events set at = now() - interval '8 days' where tenant_id = ${slowed} and type = 'complained'`,
    )
    await checkReputation({ store: store(), logger })
    expect((await stageOf(slowed))?.stage).toBe('ok')
    const actions = await database.db.execute<{ details: { to: string } }>(
      sql`select details from tenant_audit_log where tenant_id = ${slowed} order by id`,
    )
    expect(actions.map((row) => row.details.to)).toEqual(['slow', 'ok'])
  })

  it('warns at 2 % hard bounces and slows at 4 %, each step with its webhook; neither holds back the bulk lane', async () => {
    const rising = await tenant('bounces-rising', 2)
    await database.db.execute(sql`
      insert into webhook_endpoints (tenant_id, url, events, secret)
      values (${rising}, 'https://hooks.rising.test/in', array['tenant.reputation'], 'whsec_dGVzdA==')`)
    await backlog(rising, 2)
    await feedback(rising, { sent: 1_000, hard: 19 })
    await checkReputation({ store: store(), logger })
    expect((await stageOf(rising))?.stage).toBe('ok')
    await feedback(rising, { sent: 0, hard: 2 })
    await checkReputation({ store: store(), logger })
    expect(await stageOf(rising)).toEqual({
      stage: 'warn',
      reason: '2.1 % hard bounces over 24 h (1,000 sent; warn at 2 %)',
    })
    const warned = await readActiveTenants(database.db, { after: null })
    expect(warned.tenants.find((row) => row.tenantId === rising)?.weight).toBe(2)
    await feedback(rising, { sent: 0, hard: 20 })
    await checkReputation({ store: store(), logger })
    expect((await stageOf(rising))?.stage).toBe('slow')
    const slowed = await readActiveTenants(database.db, { after: null })
    expect(slowed.tenants.find((row) => row.tenantId === rising)?.weight).toBe(0.5)
    const hooks = await database.db.execute<{
      data: { stage: string; previousStage: string; threshold: number }
    }>(
      sql`select payload->'data' as data from webhook_deliveries where tenant_id = ${rising} order by created_at, id`,
    )
    expect(hooks.map((hook) => [hook.data.previousStage, hook.data.stage, hook.data.threshold])).toEqual([
      ['ok', 'warn', 0.02],
      ['warn', 'slow', 0.04],
    ])
  })

  it('keeps the week’s counts between passes, but not those from before a resume: a resumed tenant is not paused again by them', async () => {
    const resumed = await tenant('resumed-within-the-cached-week')
    await feedback(resumed, { sent: 1_000, hard: 100, ago: '2 hours' })
    const cached = store()
    await checkReputation({ store: cached, logger })
    expect((await stageOf(resumed))?.stage).toBe('pause')
    // What the admin's resume writes.
    await database.db.execute(sql`
      update tenants set reputation_stage = 'ok', reputation_resumed_at = now() where id = ${resumed}`)
    await checkReputation({ store: cached, logger })
    expect((await stageOf(resumed))?.stage).toBe('ok')
    // New bounces after the resume are judged: in both windows, from the resume on.
    await feedback(resumed, { sent: 300, hard: 30, ago: '0 seconds' })
    const counts = (await cached.readCounts()).find((row) => row.tenantId === resumed)
    expect(counts?.windows).toEqual({
      day: { sent: 300, hardBounces: 30, complaints: 0 },
      week: { sent: 300, hardBounces: 30, complaints: 0 },
    })
  })

  it('judges each window from a resume on, and not below the minimum volume', async () => {
    const resumed = await tenant('resumed-after-bad-list')
    await feedback(resumed, { sent: 1_000, hard: 100, ago: '2 hours' })
    await database.db.execute(
      sql`update tenants set reputation_resumed_at = now() - interval '1 hour' where id = ${resumed}`,
    )
    await feedback(resumed, { sent: 150, hard: 30, ago: '30 minutes' })
    const counts = (await readReputationCounts(database.db)).find((row) => row.tenantId === resumed)
    expect(counts?.windows).toEqual({
      day: { sent: 150, hardBounces: 30, complaints: 0 },
      week: { sent: 150, hardBounces: 30, complaints: 0 },
    })
    // 20 % bounces, but 150 sends since the resume: under the 200 the thresholds ask for.
    await checkReputation({ store: store(), logger })
    expect((await stageOf(resumed))?.stage).toBe('ok')
  })
})
