import { checkReputation } from '@fairlane/core'
import { createReputationStore } from '@fairlane/db/queries/reputation'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FeedbackStack, startFeedbackStack } from '../../testing/feedback-stack'
import { startTestPipeline, type TestPipeline } from '../../testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages, setPlan } from '../../testing/seed'

/**
 * The reputation guardrail on the whole engine, every part real: a tenant mails a bought list, the
 * sink (as receivers would) bounces 7 % of it back through the inbound server, the guardrail's pass
 * pauses the tenant once 200 sends are judged, and from then on none of its bulk mail leaves — its
 * rows wait `pending`, its campaign reads `paused` — while its login codes still arrive and another tenant's campaign goes out whole.
 */
const env = setupTestEnvironment('reputation-guardrail')
const BOUGHT = 800
const CAREFUL = 120
let sink: MailSink
let feedback: FeedbackStack
let pipeline: TestPipeline
const db = () => pipeline.database.db

beforeAll(async () => {
  feedback = await startFeedbackStack(env.databaseUrl)
  sink = feedback.sink
  pipeline = await startTestPipeline(env, sink)
})

afterAll(async () => {
  await pipeline?.stop()
  await feedback?.close()
})

async function counts(tenantId: string) {
  const [row] = await db().execute<{ sent: number; hard: number; pending: number; cancelled: number }>(sql`
    select
      (select count(*) from message_events where tenant_id = ${tenantId} and type = 'sent')::int as sent,
      (select count(*) from message_events where tenant_id = ${tenantId} and type = 'bounced' and detail->>'kind' = 'hard')::int as hard,
      (select count(*) from messages where tenant_id = ${tenantId} and status = 'pending')::int as pending,
      (select count(*) from messages where tenant_id = ${tenantId} and status = 'cancelled')::int as cancelled`)
  if (!row) throw new Error('no counts')
  return row
}

describe('the reputation guardrail on the engine', () => {
  it('pauses a tenant whose campaign bounces 7 % after the minimum volume: its bulk stops with its rows pending, its login codes and another tenant’s campaign go on', async () => {
    const bought = await createTenant(db(), 'Bought A List Ltd')
    const careful = await createTenant(db(), 'Careful Co')
    // Slow enough that most of the list is still waiting when the guardrail judges it.
    await setPlan(db(), bought, { ratePerSec: 40, burst: 10 })
    const list = await seedCampaign(db(), { tenantId: bought, contacts: BOUGHT, domain: 'bought.test' })
    // One address in fourteen is unknown to its receiver: 7.1 % hard bounces.
    for (let index = 14; index <= BOUGHT; index += 14) {
      sink.faults.add({ match: `${list.prefix}${index}@bought.test`, bounce: '5.1.1', delayMs: 20 })
    }
    const store = createReputationStore(db(), {
      appUrl: 'http://app.guardrail.test',
      platformTenantName: 'Fairlane',
    })
    const logger = { warn: () => {}, info: () => {} }

    // The guardrail's pass, as the reputation-check job runs it, once 200 sends and their bounces are in.
    await eventually(
      async () => {
        const now = await counts(bought)
        return now.sent >= 200 && now.hard / now.sent >= 0.06 ? now : undefined
      },
      {
        what: '200 of the bought list sent and over 6 % of them bounced',
        timeoutMs: 45_000,
        intervalMs: 100,
      },
    )
    const { changes } = await checkReputation({ store, logger })
    expect(changes).toContainEqual(expect.objectContaining({ tenantId: bought, from: 'ok', to: 'pause' }))

    // The other tenant's campaign and the paused tenant's login codes, after the pause.
    const other = await seedCampaign(db(), { tenantId: careful, contacts: CAREFUL, domain: 'careful.test' })
    const codes = await seedQueuedMessages(db(), {
      tenantId: bought,
      lane: 'critical',
      count: 3,
      to: (index) => `login-${index}@bought-users.test`,
    })

    // What was handed to the lane before the pause finishes; then nothing more of its bulk leaves.
    const settled = await eventually(
      async () => {
        const first = await counts(bought)
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        const second = await counts(bought)
        return second.sent === first.sent ? second : undefined
      },
      { what: 'the paused tenant’s bulk sends to stop', timeoutMs: 30_000, intervalMs: 0 },
    )
    expect(settled.pending).toBeGreaterThan(BOUGHT / 4)
    expect(settled.cancelled).toBe(0)
    const [campaign] = await db().execute<{ status: string }>(
      sql`select status from campaigns where id = ${list.campaignId}`,
    )
    expect(campaign?.status).toBe('paused')

    await eventually(
      async () => {
        const delivered = new Set(sink.store.list().flatMap((mail) => mail.recipients))
        return codes.every((code) => delivered.has(code.toAddress))
      },
      { what: 'the paused tenant’s login codes delivered', timeoutMs: 20_000 },
    )
    await eventually(async () => (await counts(careful)).sent === CAREFUL, {
      what: `the other tenant's ${CAREFUL} campaign mails sent`,
      timeoutMs: 30_000,
    })
    expect(await counts(careful)).toMatchObject({ sent: CAREFUL, pending: 0 })
    const [otherCampaign] = await db().execute<{ status: string }>(
      sql`select status from campaigns where id = ${other.campaignId}`,
    )
    expect(otherCampaign?.status).not.toBe('cancelled')

    // Still nothing of the paused tenant's bulk left meanwhile.
    expect((await counts(bought)).sent).toBe(settled.sent)
  }, 120_000)
})
