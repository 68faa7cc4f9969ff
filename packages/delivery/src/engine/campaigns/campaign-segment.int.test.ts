import { createSegment, deleteSegment, scheduleCampaign } from '@fairlane/core'
import { createCampaignStore } from '@fairlane/db/queries/campaigns'
import { createSegmentStore } from '@fairlane/db/queries/segments'
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
 * A campaign whose audience is a segment, scheduled by the same use case the API and the editor call
 * and resolved by the running dispatcher at its send time: exactly the contacts matching then, minus
 * the unsubscribed and the suppressed.
 */
const test = setupTestEnvironment('campaign-segment')
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

const campaignDeps = () => ({
  store: createCampaignStore(pipeline.database.db),
  domains: createSenderDomains(pipeline.database.db),
  templates: { syntaxError: templateSyntaxError },
  clock: { now: () => new Date() },
})

async function campaignRow(campaignId: string) {
  const [row] = await pipeline.database.db.execute<{ status: string; recipient_count: number }>(
    sql`select status, recipient_count from campaigns where id = ${campaignId}`,
  )
  return row
}

describe('a campaign to a segment', () => {
  it('goes to exactly the matching, subscribed, unsuppressed contacts at send time', async () => {
    const { db } = pipeline.database
    const tenantId = await createTenant(db, 'Segmented')
    await setPlan(db, tenantId, { ratePerSec: 200, burst: 50 })
    const prefix = `seg${Math.random().toString(36).slice(2, 8)}-`
    const email = (who: string) => `${prefix}${who}@example.com`
    const add = (who: string, attributes: Record<string, unknown>, unsubscribed = false) =>
      db.execute(sql`
        insert into contacts (tenant_id, email, name, attributes, unsubscribed_at)
        values (${tenantId}, ${email(who)}, ${who}, ${JSON.stringify(attributes)}::jsonb, ${unsubscribed ? new Date().toISOString() : null})`)
    await add('ann', { city: 'Berlin', plan: 'pro' })
    await add('bob', { city: 'Berlin', plan: 'team' })
    await add('cat', { city: 'Berlin', plan: 'free' }) // not on a matching plan
    await add('dan', { city: 'Paris', plan: 'pro' }) // another city
    await add('eve', { city: 'Berlin', plan: 'pro' }, true) // unsubscribed
    await add('fay', { city: 'Berlin', plan: 'team' }) // suppressed below
    await add('gus', { city: 'Munich', plan: 'pro' }) // moves to Berlin before the send time
    await db.execute(
      sql`insert into suppressions (tenant_id, email, reason) values (${tenantId}, ${email('fay')}, 'hard-bounce')`,
    )
    // Another tenant's Berliner on a matching plan must not be touched.
    const other = await createTenant(db, 'Other')
    await db.execute(sql`
      insert into contacts (tenant_id, email, attributes)
      values (${other}, ${email('zed')}, '{"city":"Berlin","plan":"pro"}'::jsonb)`)

    const segment = await createSegment(
      {
        tenantId,
        name: 'Berlin customers',
        filter: {
          conditions: [
            { op: 'equals', attribute: 'city', value: 'Berlin' },
            { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
          ],
        },
      },
      { store: createSegmentStore(db) },
    )
    const scheduled = await scheduleCampaign(
      {
        tenantId,
        draft: {
          name: 'Berlin launch',
          subject: 'Hello {{name}} in {{city}}',
          html: '<p>Hello {{name}}</p>',
          text: null,
          listId: null,
          segmentId: segment.id,
          schedule: { kind: 'instant', sendAt: new Date(Date.now() + 2_500) },
        },
      },
      campaignDeps(),
    )
    expect(scheduled.audience).toEqual({ recipients: 2, unsubscribed: 1, suppressed: 1 })

    // While it is scheduled, the segment cannot be deleted; the refusal names the campaign.
    await expect(
      deleteSegment({ tenantId, segmentId: segment.id }, { store: createSegmentStore(db) }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('“Berlin launch” (scheduled)'),
    })

    // Gus starts matching after scheduling and before the send time: he gets it.
    await db.execute(sql`
      update contacts set attributes = attributes || '{"city":"Berlin"}'::jsonb
      where tenant_id = ${tenantId} and email = ${email('gus')}`)

    await eventually(async () => (await campaignRow(scheduled.id))?.status === 'sent', {
      what: 'the segment campaign was sent',
      timeoutMs: 30_000,
    })
    const mails = sink.store.list().filter((mail) => mail.to.startsWith(prefix))
    expect(mails.map((mail) => mail.to).sort()).toEqual([email('ann'), email('bob'), email('gus')])
    expect(mails.find((mail) => mail.to === email('gus'))?.subject).toBe('Hello gus in Berlin')
    // Fay and Eve are recorded as left out, with the reason; nobody else has a message row.
    const rows = await db.execute<{ to_address: string; status: string }>(sql`
      select to_address, status from messages where campaign_id = ${scheduled.id} order by to_address`)
    expect(rows.map((row) => [row.to_address.replace(prefix, ''), row.status])).toEqual([
      ['ann@example.com', 'sent'],
      ['bob@example.com', 'sent'],
      ['eve@example.com', 'suppressed'],
      ['fay@example.com', 'suppressed'],
      ['gus@example.com', 'sent'],
    ])

    // Sent, it no longer holds the segment.
    await deleteSegment({ tenantId, segmentId: segment.id }, { store: createSegmentStore(db) })
  })

  it('refuses a segment of another tenant, and a list and a segment together', async () => {
    const { db } = pipeline.database
    const owner = await createTenant(db, 'Owner')
    const thief = await createTenant(db, 'Thief')
    const segment = await createSegment(
      { tenantId: owner, name: 'Mine', filter: { conditions: [{ op: 'exists', attribute: 'city' }] } },
      { store: createSegmentStore(db) },
    )
    const draft = {
      name: 'X',
      subject: 'X',
      html: '<p>X</p>',
      text: null,
      listId: null,
      segmentId: segment.id,
      schedule: { kind: 'draft' as const },
    }
    await expect(scheduleCampaign({ tenantId: thief, draft }, campaignDeps())).rejects.toMatchObject({
      code: 'not_found',
      details: [{ path: 'segmentId', message: 'is not one of your segments' }],
    })
    await expect(
      scheduleCampaign({ tenantId: owner, draft: { ...draft, listId: segment.id } }, campaignDeps()),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [{ path: 'segmentId' }] })
  })
})
