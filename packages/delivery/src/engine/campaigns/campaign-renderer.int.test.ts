import { unsubscribeKey } from '@fairlane/core'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SESSION_SECRET, TEST_UNSUBSCRIBE_SECRETS } from '../../testing/pipeline'
import { createTenant, seedCampaign } from '../../testing/seed'
import { createCampaignRenderer } from './campaign-renderer'

const env = setupTestEnvironment('campaign-renderer')
let database: DatabaseHandle
let tenantId: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'campaign-renderer-test' })
  tenantId = await createTenant(database.db)
})

afterAll(async () => {
  await database?.close()
})

const SUBJECT = 'News for {{name}}'
const htmlOf = (name: string, edition: number) => `<p>Campaign ${name}, edition ${edition}, {{name}}</p>`

function newRenderer(options: { cacheBytes?: number } = {}) {
  return createCampaignRenderer({
    db: database.db,
    appUrl: 'http://127.0.0.1:3999',
    unsubscribeKey: unsubscribeKey({ secrets: TEST_UNSUBSCRIBE_SECRETS, sessionSecret: TEST_SESSION_SECRET }),
    ...options,
  })
}

describe('createCampaignRenderer', () => {
  it('keeps the campaigns used most recently within its bytes, reading a campaign again only once it left', async () => {
    const campaigns = new Map<string, string>()
    for (const name of ['A', 'B', 'C']) {
      const { campaignId } = await seedCampaign(database.db, {
        tenantId,
        contacts: 1,
        subject: SUBJECT,
        html: htmlOf(name, 1),
        sendAt: new Date(Date.now() + 86_400_000),
      })
      campaigns.set(name, campaignId)
    }
    // Room for two of these campaigns (each counts 6 × its texts + 1 KiB), not three.
    const oneCampaign = 6 * (SUBJECT.length + htmlOf('A', 1).length) + 1024
    const renderer = newRenderer({ cacheBytes: Math.floor(2.5 * oneCampaign) })
    const render = async (name: string) =>
      (
        await renderer.render({
          tenantId,
          campaignId: campaigns.get(name) as string,
          messageId: crypto.randomUUID(),
          toAddress: 'reader@example.com',
          contact: { id: crypto.randomUUID(), name: 'Reader', attributes: {} },
          trackingDisabled: true,
        })
      ).html

    // A and B read; A used again, so B is the least recently used when C comes.
    for (const name of ['A', 'B', 'A', 'C'])
      expect(await render(name)).toContain(`Campaign ${name}, edition 1`)
    // What a read would now find (content is frozen once dispatched: only this test changes it).
    for (const name of ['A', 'B']) {
      await database.db.execute(
        sql`update campaigns set html = ${htmlOf(name, 2)} where id = ${campaigns.get(name) as string}`,
      )
    }
    // A is still held; B left (first in, first out would have dropped A, read before B).
    expect(await render('A')).toContain('Campaign A, edition 1')
    expect(await render('B')).toContain('Campaign B, edition 2')
  })

  it('prefetch reads a batch’s campaigns at once; their renders read nothing more, another tenant’s campaign is not its', async () => {
    const otherTenant = await createTenant(database.db)
    const seed = (owner: string, name: string) =>
      seedCampaign(database.db, {
        tenantId: owner,
        contacts: 1,
        subject: SUBJECT,
        html: htmlOf(name, 1),
        sendAt: new Date(Date.now() + 86_400_000),
      }).then((seeded) => seeded.campaignId)
    const [d, e, foreign] = [
      await seed(tenantId, 'D'),
      await seed(tenantId, 'E'),
      await seed(otherTenant, 'F'),
    ]
    const renderer = newRenderer()
    // The third is asked for under this tenant, but belongs to another.
    await renderer.prefetch?.([d, e, foreign].map((campaignId) => ({ tenantId, campaignId })))
    for (const [name, id] of [
      ['D', d],
      ['E', e],
    ] as const) {
      await database.db.execute(sql`update campaigns set html = ${htmlOf(name, 2)} where id = ${id}`)
    }
    const render = (campaignId: string) =>
      renderer.render({
        tenantId,
        campaignId,
        messageId: crypto.randomUUID(),
        toAddress: 'reader@example.com',
        contact: { id: crypto.randomUUID(), name: 'Reader', attributes: {} },
        trackingDisabled: true,
      })
    // Read by the prefetch, before the change: the renders did not read them again.
    expect((await render(d)).html).toContain('Campaign D, edition 1')
    expect((await render(e)).html).toContain('Campaign E, edition 1')
    await expect(render(foreign)).rejects.toThrow(/no longer exists/)
  })
})
