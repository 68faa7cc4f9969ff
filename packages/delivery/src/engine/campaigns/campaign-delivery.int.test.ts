import { messages } from '@fairlane/db'
import { campaignMessageCounts } from '@fairlane/db/queries/campaigns'
import { dispatchCampaignBatch } from '@fairlane/db/queries/dispatch'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { campaignStatusCounts, receivedTimesMs } from '../../testing/measure'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedCampaign, setPlan } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/** Campaign → dispatch → pacer → bulk lane behind the bucket → the real sink, in this process. */
const test = setupTestEnvironment('campaign-delivery')
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

async function campaignStatus(campaignId: string) {
  const [row] = await pipeline.database.db.execute<{ status: string; recipient_count: number }>(
    sql`select status, recipient_count from campaigns where id = ${campaignId}`,
  )
  return row
}

describe('campaign delivery', () => {
  it('renders and delivers every recipient once, with unsubscribe headers, and marks the campaign sent', async () => {
    const tenantId = await createTenant(pipeline.database.db, 'Newsletter Co')
    await setPlan(pipeline.database.db, tenantId, { ratePerSec: 200, burst: 50 })
    const { campaignId, prefix } = await seedCampaign(pipeline.database.db, { tenantId, contacts: 40 })
    await eventually(async () => (await campaignStatus(campaignId))?.status === 'sent', {
      what: 'campaign sent',
      timeoutMs: 20_000,
    })
    const mails = sink.store.list().filter((mail) => mail.to.startsWith(prefix))
    expect(mails).toHaveLength(40)
    expect(duplicateMessageIds(sink)).toEqual([])
    const one = mails.find((mail) => mail.to === `${prefix}7@example.com`)
    expect(one?.subject).toBe('News for Contact 7')
    expect(one?.html).toContain('Hello Contact 7 from City 7')
    expect(one?.headers['list-unsubscribe']).toMatch(/^<http:\/\/127\.0\.0\.1:3999\/u\/[A-Za-z0-9_-]+>$/)
    expect(one?.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    expect((await campaignStatus(campaignId))?.recipient_count).toBe(40)
  })

  it('dispatching twice adds each recipient once', async () => {
    const tenantId = await createTenant(pipeline.database.db, 'Twice')
    // Due in an hour: the running dispatcher leaves it alone while this test dispatches by hand.
    const { campaignId } = await seedCampaign(pipeline.database.db, {
      tenantId,
      contacts: 25,
      sendAt: new Date(Date.now() + 3_600_000),
    })
    await pipeline.database.db.execute(sql`update campaigns set send_at = now() where id = ${campaignId}`)
    const first = await dispatchCampaignBatch(pipeline.database.db, { campaignId, batchSize: 10 })
    // A dispatcher that lost its cursor (crash after COMMIT of the rows but not of the cursor) runs again.
    await pipeline.database.db.execute(
      sql`update campaigns set dispatch_cursor = null where id = ${campaignId}`,
    )
    const again = await dispatchCampaignBatch(pipeline.database.db, { campaignId, batchSize: 10 })
    expect(first).toMatchObject({ kind: 'batch', inserted: 10 })
    expect(again).toMatchObject({ kind: 'batch', inserted: 0 })
    await eventually(async () => (await campaignStatus(campaignId))?.status === 'sent', {
      what: 'campaign sent',
      timeoutMs: 20_000,
    })
    const rows = await pipeline.database.db
      .select({ contactId: messages.contactId })
      .from(messages)
      .where(and(eq(messages.campaignId, campaignId)))
    expect(rows).toHaveLength(25)
    expect(new Set(rows.map((row) => row.contactId)).size).toBe(25)
  })
  it('pages a list campaign through the list only, and a list-less campaign through every contact', async () => {
    const { db } = pipeline.database
    const tenantId = await createTenant(db, 'Pages')
    const later = new Date(Date.now() + 3_600_000)
    // 25 list members, and 5 contacts of the same tenant outside the list.
    const { campaignId: listCampaign } = await seedCampaign(db, { tenantId, contacts: 25, sendAt: later })
    await db.execute(sql`
      insert into contacts (tenant_id, email, name)
      select ${tenantId}, 'outside-' || g || '@example.com', 'Outside ' || g from generate_series(1, 5) g`)
    const [everyone] = await db.execute<{ id: string }>(sql`
      insert into campaigns (tenant_id, name, subject, html, list_id, status, send_at)
      values (${tenantId}, 'everyone', 'Hi', '<p>Hi</p>', null, 'scheduled', now())
      returning id`)
    const everyoneId = everyone?.id as string
    await db.execute(sql`update campaigns set send_at = now() where id = ${listCampaign}`)

    const pages = async (campaignId: string) => {
      const inserted: number[] = []
      for (let page = 0; page < 10; page++) {
        const result = await dispatchCampaignBatch(db, { campaignId, batchSize: 10 })
        if (result.kind !== 'batch') break
        inserted.push(result.inserted)
        if (result.done) break
      }
      return inserted
    }
    // Unless the running dispatcher got there first: then the pages here find nothing new, and the
    // rows below still say each contact was added once.
    const listPages = await pages(listCampaign)
    const everyonePages = await pages(everyoneId)
    expect(listPages.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(25)
    expect(everyonePages.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(30)
    const countOf = async (campaignId: string) => {
      const rows = await db
        .select({ contactId: messages.contactId, to: messages.toAddress })
        .from(messages)
        .where(eq(messages.campaignId, campaignId))
      return { total: rows.length, distinct: new Set(rows.map((row) => row.contactId)).size, rows }
    }
    await eventually(async () => (await countOf(everyoneId)).total === 30, {
      what: 'every contact dispatched',
    })
    const list = await countOf(listCampaign)
    expect(list.total).toBe(25)
    expect(list.distinct).toBe(25)
    expect(list.rows.some((row) => row.to.startsWith('outside-'))).toBe(false)
    expect((await countOf(everyoneId)).distinct).toBe(30)
  })

  it('skips, at send time, a contact who unsubscribed after dispatch, and counts it as suppressed', async () => {
    const { db } = pipeline.database
    const tenantId = await createTenant(db, 'Late leavers')
    // Two a second: the pacer releases about one row per tick, so most rows wait `pending` for seconds.
    await setPlan(db, tenantId, { ratePerSec: 2, burst: 1 })
    const { campaignId, prefix } = await seedCampaign(db, { tenantId, contacts: 8 })
    await eventually(() => receivedTimesMs(sink, prefix).length >= 1, {
      what: 'the first mail of the slow campaign',
      timeoutMs: 20_000,
    })
    // Dispatched (every row written, as sending) but not yet released: unsubscribe two of those
    // recipients, in one statement that picks them by their rows' status. A row released to a job
    // (or claimed by one) keeps `pending` on the wide row, with its release or claim in
    // message_claims: only rows without one are still waiting (a claimed one may be on the wire).
    await eventually(async () => (await campaignStatus(campaignId))?.status === 'sending', {
      what: 'the campaign dispatched',
    })
    const left = await db.execute<{ email: string }>(sql`
      update contacts set unsubscribed_at = now()
      where id in (
        select m.contact_id from messages m
        where m.campaign_id = ${campaignId} and m.status = 'pending'
          and not exists (select 1 from message_claims c where c.message_id = m.id)
        order by m.created_at desc, m.id desc limit 2)
      returning email`)
    expect(left).toHaveLength(2)

    await eventually(async () => (await campaignStatus(campaignId))?.status === 'sent', {
      what: 'the campaign sent',
      timeoutMs: 30_000,
    })
    const arrived = sink.store.list().filter((mail) => mail.to.startsWith(prefix))
    expect(arrived).toHaveLength(6)
    for (const { email } of left) expect(arrived.map((mail) => mail.to)).not.toContain(email)
    expect(await campaignStatusCounts(db, campaignId)).toEqual({ sent: 6, suppressed: 2 })
    const counts = await campaignMessageCounts(db, { tenantId, campaignIds: [campaignId] })
    expect(counts.get(campaignId)).toMatchObject({ sent: 6, suppressed: 2 })
  })
})
