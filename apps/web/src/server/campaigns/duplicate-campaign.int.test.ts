import { duplicateCampaign } from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { campaigns, lists } from '@fairlane/db'
import { createCampaignStore } from '@fairlane/db/queries/campaigns'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, seedTenant, type WebHarness } from '../test-support/harness'

const env = setupTestEnvironment('web-duplicate-campaign')

let harness: WebHarness
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
})

afterAll(async () => {
  await harness?.close()
})

describe('duplicating a campaign', () => {
  it('makes a draft with the content, audience and tracking, not the schedule or the progress', async () => {
    const { db } = harness.database
    const [list] = await db.insert(lists).values({ tenantId: acme.tenantId, name: 'VIP' }).returning()
    const [sent] = await db
      .insert(campaigns)
      .values({
        tenantId: acme.tenantId,
        name: 'Spring news',
        subject: 'Hi {{name}}',
        html: '<p>Spring</p>',
        text: 'Spring',
        listId: list?.id,
        status: 'sent',
        sendAt: new Date('2026-03-01T09:00:00Z'),
        sendAtLocal: '2026-03-01T10:00',
        timeZone: 'Europe/Berlin',
        recipientCount: 12,
        trackOpens: true,
        trackClicks: false,
      })
      .returning()
    if (!sent) throw new Error('no campaign')
    const store = createCampaignStore(db)
    const copy = await duplicateCampaign({ tenantId: acme.tenantId, campaignId: sent.id }, { store })
    expect(copy.id).not.toBe(sent.id)
    const [row] = await harness.database.sql`
      select tenant_id, name, subject, html, text, list_id, status, send_at, send_at_local, time_zone,
        recipient_count, track_opens, track_clicks from campaigns where id = ${copy.id}`
    expect(row).toEqual({
      tenant_id: acme.tenantId,
      name: 'Copy of Spring news',
      subject: 'Hi {{name}}',
      html: '<p>Spring</p>',
      text: 'Spring',
      list_id: list?.id,
      status: 'draft',
      send_at: null,
      send_at_local: null,
      time_zone: null,
      recipient_count: 0,
      track_opens: true,
      track_clicks: false,
    })

    // Another tenant's campaign reads as missing, and nothing is written for it.
    const refusal = await duplicateCampaign(
      { tenantId: globex.tenantId, campaignId: sent.id },
      { store },
    ).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(AppError)
    expect((refusal as AppError).code).toBe('not_found')
    const [globexCount] = await harness.database.sql`
      select count(*)::int as n from campaigns where tenant_id = ${globex.tenantId}`
    expect(globexCount).toEqual({ n: 0 })
  })
})
