import { campaigns, messages } from '@fairlane/db'
import { createTenant } from '@fairlane/db/queries/tenants'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, type WebHarness } from '../test-support/harness'
import { loadCampaignProgress } from './campaign-progress'

const env = setupTestEnvironment('web-campaign-progress')

let harness: WebHarness
let acme: string
let globex: string

beforeAll(async () => {
  harness = createWebHarness(env)
  acme = (await createTenant(harness.database.db, { name: 'Acme' })).id
  globex = (await createTenant(harness.database.db, { name: 'Globex' })).id
})

afterAll(async () => {
  await harness?.close()
})

describe('loadCampaignProgress', () => {
  it('answers counts, progress over the recipients dispatched and the last minute per second', async () => {
    const { db } = harness.database
    const now = new Date()
    const [campaign] = await db
      .insert(campaigns)
      .values({
        tenantId: acme,
        name: 'News',
        subject: 'Hi',
        html: '<p>Hi</p>',
        status: 'sending',
        recipientCount: 8,
      })
      .returning({ id: campaigns.id, status: campaigns.status, recipientCount: campaigns.recipientCount })
    if (!campaign) throw new Error('no campaign')
    const row = (
      status: 'sent' | 'pending' | 'sending' | 'failed' | 'cancelled',
      sentAt: Date | null = null,
    ) => ({
      tenantId: acme,
      campaignId: campaign.id,
      lane: 'bulk' as const,
      status,
      toAddress: 'someone@example.test',
      sentAt,
    })
    const twoSecondsAgo = new Date(now.getTime() - 2000)
    await db
      .insert(messages)
      .values([
        row('sent', twoSecondsAgo),
        row('sent', twoSecondsAgo),
        row('failed'),
        row('cancelled'),
        row('sending'),
        row('pending'),
        row('pending'),
        row('pending'),
      ])

    const view = await loadCampaignProgress(db, { tenantId: acme, campaign, now })
    expect(view).toMatchObject({
      status: 'sending',
      recipientCount: 8,
      progress: 0.5,
      counts: { pending: 3, queued: 1, sent: 2, failed: 1, suppressed: 0, cancelled: 1 },
    })
    expect(view.sendsPerSecond).toHaveLength(60)
    expect(view.sendsPerSecond.reduce((sum, point) => sum + point.sent, 0)).toBe(2)

    // Through another tenant's id nothing is read, whatever the campaign row passed in says.
    const foreign = await loadCampaignProgress(db, { tenantId: globex, campaign, now })
    expect(foreign.counts).toEqual({
      pending: 0,
      queued: 0,
      sent: 0,
      failed: 0,
      suppressed: 0,
      cancelled: 0,
      bounced: 0,
      complained: 0,
    })
    expect(foreign.sendsPerSecond.every((point) => point.sent === 0)).toBe(true)
  })
})
