import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns, messages } from '../schema'
import { campaignSendsPerSecond } from './campaign-progress'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-campaign-progress')

let database: DatabaseHandle
let acme: string
let globex: string
let campaignId: string
let otherCampaignId: string
let globexCampaignId: string

// 12:00:30.400 UTC: the window is the 60 whole seconds 11:59:30 … 12:00:29.
const now = new Date('2030-01-01T12:00:30.400Z')
const nowSeconds = Math.floor(now.getTime() / 1000)
const at = (secondsBeforeNow: number, ms = 0) => new Date((nowSeconds - secondsBeforeNow) * 1000 + ms)

async function insertCampaign(tenantId: string) {
  const [row] = await database.db
    .insert(campaigns)
    .values({ tenantId, name: 'News', subject: 'Hi', html: '<p>Hi</p>', status: 'sending' })
    .returning({ id: campaigns.id })
  if (!row) throw new Error('no campaign')
  return row.id
}

const sentRow = (
  tenantId: string,
  campaign: string,
  sentAt: Date | null,
  status: 'sent' | 'queued' = 'sent',
) => ({
  tenantId,
  campaignId: campaign,
  lane: 'bulk' as const,
  status,
  toAddress: 'someone@example.test',
  sentAt,
})

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'campaign-progress-test' })
  acme = (await createTenant(database.db, { name: 'Acme' })).id
  globex = (await createTenant(database.db, { name: 'Globex' })).id
  campaignId = await insertCampaign(acme)
  otherCampaignId = await insertCampaign(acme)
  globexCampaignId = await insertCampaign(globex)
  await database.db.insert(messages).values([
    // In the window: 3 in the oldest second, 2 one second before now's, 1 ten seconds back.
    sentRow(acme, campaignId, at(60)),
    sentRow(acme, campaignId, at(60, 500)),
    sentRow(acme, campaignId, at(60, 999)),
    sentRow(acme, campaignId, at(1)),
    sentRow(acme, campaignId, at(1, 999)),
    sentRow(acme, campaignId, at(10, 250)),
    // Outside it: the second before the window, the unfinished current second, and unsent rows.
    sentRow(acme, campaignId, at(61, 999)),
    sentRow(acme, campaignId, at(0, 100)),
    sentRow(acme, campaignId, null, 'queued'),
    // Another campaign of the same tenant and another tenant's campaign, sending in the same seconds.
    sentRow(acme, otherCampaignId, at(10)),
    sentRow(globex, globexCampaignId, at(10)),
    sentRow(globex, globexCampaignId, at(1)),
  ])
})

afterAll(async () => {
  await database?.close()
})

describe('campaignSendsPerSecond', () => {
  it('buckets the last 60 whole seconds of this campaign, oldest first, zero-filled', async () => {
    const series = await campaignSendsPerSecond(database.db, { tenantId: acme, campaignId, now })
    expect(series).toHaveLength(60)
    expect(series.map((point) => point.t)).toEqual(Array.from({ length: 60 }, (_, i) => nowSeconds - 60 + i))
    const bySecondsAgo = Object.fromEntries(
      series.filter((point) => point.sent > 0).map((point) => [nowSeconds - point.t, point.sent]),
    )
    expect(bySecondsAgo).toEqual({ 60: 3, 10: 1, 1: 2 })
    expect(series.reduce((sum, point) => sum + point.sent, 0)).toBe(6)
  })

  it("reads nothing of a campaign through another tenant's id", async () => {
    const series = await campaignSendsPerSecond(database.db, { tenantId: globex, campaignId, now })
    expect(series).toHaveLength(60)
    expect(series.every((point) => point.sent === 0)).toBe(true)
    const own = await campaignSendsPerSecond(database.db, {
      tenantId: globex,
      campaignId: globexCampaignId,
      now,
    })
    expect(own.reduce((sum, point) => sum + point.sent, 0)).toBe(2)
  })

  it('takes a shorter window when asked', async () => {
    const series = await campaignSendsPerSecond(database.db, { tenantId: acme, campaignId, now, seconds: 5 })
    expect(series.map((point) => [nowSeconds - point.t, point.sent])).toEqual([
      [5, 0],
      [4, 0],
      [3, 0],
      [2, 0],
      [1, 2],
    ])
  })

  it('answers from the campaign/sent_at index', async () => {
    const plan = await database.sql.begin(async (tx) => {
      // The table is tiny here; without this the planner would rightly read it whole.
      await tx`set local enable_seqscan = off`
      return tx.unsafe(
        `explain select count(*) from messages
         where campaign_id = $1 and tenant_id = $2 and sent_at >= to_timestamp($3) and sent_at < to_timestamp($4)`,
        [campaignId, acme, nowSeconds - 60, nowSeconds],
      )
    })
    expect(plan.map((row) => Object.values(row)[0]).join('\n')).toContain('messages_campaign_sent_idx')
  })
})
