import { scheduleCampaign } from '@fairlane/core'
import { campaignMessageCounts, createCampaignStore } from '@fairlane/db/queries/campaigns'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { templateSyntaxError } from '@fairlane/mail/templates'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, setPlan } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/**
 * A campaign scheduled while its audience is empty: accepted with a warning by the same use case the
 * API and the editor call, then resolved by the running dispatcher at its send time.
 */
const test = setupTestEnvironment('campaign-empty-audience')
let sink: MailSink
let pipeline: TestPipeline

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, { logger: testLogger(process.env.TEST_LOG_LEVEL) })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

/** Schedules through the use case, due in `inMs` (or now), to the (empty) list. */
async function scheduleToList(tenantId: string, listId: string, inMs: number | 'now') {
  return scheduleCampaign(
    {
      tenantId,
      draft: {
        name: 'Launch',
        subject: 'Hello {{name}}',
        html: '<p>Hello {{name}}</p>',
        text: null,
        listId,
        segmentId: null,
        schedule: inMs === 'now' ? { kind: 'now' } : { kind: 'instant', sendAt: new Date(Date.now() + inMs) },
      },
    },
    {
      store: createCampaignStore(pipeline.database.db),
      domains: createSenderDomains(pipeline.database.db),
      templates: { syntaxError: templateSyntaxError },
      clock: { now: () => new Date() },
    },
  )
}

async function emptyList(tenantId: string): Promise<string> {
  const [row] = await pipeline.database.db.execute<{ id: string }>(
    sql`insert into lists (tenant_id, name) values (${tenantId}, 'Launch list') returning id`,
  )
  if (!row) throw new Error('list insert returned nothing')
  return row.id
}

async function campaignRow(campaignId: string) {
  const [row] = await pipeline.database.db.execute<{
    status: string
    recipient_count: number
    completed_at: string | null
  }>(sql`select status, recipient_count, completed_at from campaigns where id = ${campaignId}`)
  return row
}

describe('a campaign scheduled with an empty audience', () => {
  it('is accepted with a warning and, still empty at send time, ends sent with zero recipients', async () => {
    const tenantId = await createTenant(pipeline.database.db, 'Still Empty')
    const scheduled = await scheduleToList(tenantId, await emptyList(tenantId), 1_000)
    expect(scheduled.status).toBe('scheduled')
    expect(scheduled.warnings.map((warning) => warning.code)).toEqual(['empty-audience'])
    await eventually(async () => (await campaignRow(scheduled.id))?.status === 'sent', {
      what: 'the empty campaign ended',
      timeoutMs: 15_000,
    })
    const row = await campaignRow(scheduled.id)
    expect(row).toMatchObject({ status: 'sent', recipient_count: 0 })
    expect(row?.completed_at).not.toBeNull()
    const counts = await campaignMessageCounts(pipeline.database.db, {
      tenantId,
      campaignIds: [scheduled.id],
    })
    expect(Object.values(counts.get(scheduled.id) ?? {}).every((count) => count === 0)).toBe(true)
  })

  it('is refused when it is to be sent now, with nobody who could join it meanwhile', async () => {
    const tenantId = await createTenant(pipeline.database.db, 'Send Now')
    const listId = await emptyList(tenantId)
    await expect(scheduleToList(tenantId, listId, 'now')).rejects.toMatchObject({
      code: 'unprocessable',
      details: [{ path: 'listId', message: 'has no recipients' }],
    })
    const [row] = await pipeline.database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from campaigns where tenant_id = ${tenantId}`,
    )
    expect(row?.n).toBe(0)
  })

  it('sends to the contacts its audience gained before the send time', async () => {
    const { db } = pipeline.database
    const tenantId = await createTenant(db, 'Filled Later')
    await setPlan(db, tenantId, { ratePerSec: 200, burst: 50 })
    const listId = await emptyList(tenantId)
    const scheduled = await scheduleToList(tenantId, listId, 2_000)
    expect(scheduled.warnings.map((warning) => warning.code)).toEqual(['empty-audience'])
    const prefix = `late${Math.random().toString(36).slice(2, 8)}-`
    await db.execute(sql`
      with created as (
        insert into contacts (tenant_id, email, name)
        select ${tenantId}, ${prefix} || g || '@example.com', 'Late ' || g from generate_series(1, 3) g
        returning id
      )
      insert into list_members (tenant_id, list_id, contact_id) select ${tenantId}, ${listId}, id from created`)
    await eventually(async () => (await campaignRow(scheduled.id))?.status === 'sent', {
      what: 'the campaign sent to the contacts added later',
      timeoutMs: 20_000,
    })
    expect(await campaignRow(scheduled.id)).toMatchObject({ status: 'sent', recipient_count: 3 })
    const mails = sink.store.list().filter((mail) => mail.to.startsWith(prefix))
    expect(mails.map((mail) => mail.to).sort()).toEqual([1, 2, 3].map((n) => `${prefix}${n}@example.com`))
    expect(mails.find((mail) => mail.to === `${prefix}2@example.com`)?.subject).toBe('Hello Late 2')
  })
})
