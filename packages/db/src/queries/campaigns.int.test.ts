import { type CampaignStatus, cancelCampaign, type MessageStatus } from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns, messages } from '../schema'
import { campaignMessageCounts, createCampaignStore } from './campaigns'
import { createTenant } from './tenants'

/** Cancelling a campaign in flight: the use case of `@fairlane/core` on its real store. */
const env = setupTestEnvironment('db-campaigns')

let database: DatabaseHandle
let acme: string
let globex: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'campaigns-test' })
  acme = (await createTenant(database.db, { name: 'Acme' })).id
  globex = (await createTenant(database.db, { name: 'Globex' })).id
})

afterAll(async () => {
  await database?.close()
})

const now = new Date('2030-01-01T12:00:00Z')
const cancel = (tenantId: string, campaignId: string) =>
  cancelCampaign(
    { tenantId, campaignId },
    { store: createCampaignStore(database.db), clock: { now: () => now } },
  )

/** A campaign of `tenantId` in `status` with one message per status listed (repeats allowed). */
async function seedCampaign(tenantId: string, status: CampaignStatus, statuses: MessageStatus[] = []) {
  const [campaign] = await database.db
    .insert(campaigns)
    .values({
      tenantId,
      name: `Campaign ${status}`,
      subject: 'Hi',
      html: '<p>Hi</p>',
      status,
      sendAt: new Date('2029-12-31T00:00:00Z'),
      recipientCount: statuses.length,
    })
    .returning({ id: campaigns.id })
  if (!campaign) throw new Error('no campaign')
  if (statuses.length > 0) {
    await database.db.insert(messages).values(
      statuses.map((messageStatus, i) => ({
        tenantId,
        campaignId: campaign.id,
        lane: 'bulk' as const,
        status: messageStatus,
        toAddress: `r${i}@example.test`,
        sentAt: messageStatus === 'sent' ? new Date('2030-01-01T11:59:00Z') : null,
      })),
    )
  }
  return campaign.id
}

async function statusesOf(campaignId: string) {
  const rows = await database.sql<{ status: string; n: number }[]>`
    select status, count(*)::int as n from messages where campaign_id = ${campaignId}
    group by status order by status`
  return Object.fromEntries(rows.map((row) => [row.status, row.n]))
}

async function campaignRow(campaignId: string) {
  const [row] = await database.db
    .select({ status: campaigns.status, cancelledAt: campaigns.cancelledAt })
    .from(campaigns)
    .where(eq(campaigns.id, campaignId))
  return row
}

const inFlight: MessageStatus[] = [
  'sent',
  'sent',
  'sent',
  'sending',
  'queued',
  'queued',
  'pending',
  'pending',
  'pending',
  'pending',
  'failed',
  'suppressed',
]

describe('cancelCampaign on PostgreSQL', () => {
  it('cancels a sending campaign: pending and queued rows are held back, sent and sending ones left alone', async () => {
    const id = await seedCampaign(acme, 'sending', inFlight)
    const sibling = await seedCampaign(acme, 'sending', ['pending', 'queued'])
    expect(await cancel(acme, id)).toEqual({ status: 'cancelled', sent: 3, cancelled: 6 })
    expect(await statusesOf(id)).toEqual({ cancelled: 6, failed: 1, sending: 1, sent: 3, suppressed: 1 })
    expect(await campaignRow(id)).toEqual({ status: 'cancelled', cancelledAt: now })
    // Only that campaign's rows: the tenant's other campaign goes on.
    expect(await statusesOf(sibling)).toEqual({ pending: 1, queued: 1 })
    expect((await campaignRow(sibling))?.status).toBe('sending')

    const counts = await campaignMessageCounts(database.db, { tenantId: acme, campaignIds: [id] })
    expect(counts.get(id)).toEqual({
      pending: 0,
      queued: 1,
      sent: 3,
      failed: 1,
      suppressed: 1,
      cancelled: 6,
      bounced: 0,
      complained: 0,
    })
  })

  it('cancels a dispatching, a scheduled and a draft campaign', async () => {
    const dispatching = await seedCampaign(acme, 'dispatching', ['pending', 'pending', 'sent'])
    expect(await cancel(acme, dispatching)).toEqual({ status: 'cancelled', sent: 1, cancelled: 2 })
    for (const status of ['scheduled', 'draft'] as const) {
      const id = await seedCampaign(acme, status)
      expect(await cancel(acme, id)).toEqual({ status: 'cancelled', sent: 0, cancelled: 0 })
      expect((await campaignRow(id))?.status).toBe('cancelled')
    }
  })

  it('treats cancelling again as a no-op that still reports what went', async () => {
    const id = await seedCampaign(acme, 'sending', ['sent', 'pending'])
    expect(await cancel(acme, id)).toEqual({ status: 'cancelled', sent: 1, cancelled: 1 })
    // The worker finishes nothing more, but a late row (say, a sending one that got through) counts.
    await database.sql`update messages set status = 'sent' where campaign_id = ${id} and status = 'cancelled'`
    expect(await cancel(acme, id)).toEqual({ status: 'cancelled', sent: 2, cancelled: 0 })
    expect((await campaignRow(id))?.cancelledAt).toEqual(now)
  })

  it('refuses a sent campaign with a conflict, changing nothing', async () => {
    const id = await seedCampaign(acme, 'sent', ['sent', 'failed'])
    const error = await cancel(acme, id).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/already sent/) })
    expect((await campaignRow(id))?.status).toBe('sent')
    expect(await statusesOf(id)).toEqual({ failed: 1, sent: 1 })
  })

  it("answers not_found for another tenant's campaign and touches none of its rows", async () => {
    const id = await seedCampaign(globex, 'sending', ['pending', 'queued', 'sent'])
    await expect(cancel(acme, id)).rejects.toMatchObject({ code: 'not_found' })
    expect((await campaignRow(id))?.status).toBe('sending')
    expect(await statusesOf(id)).toEqual({ pending: 1, queued: 1, sent: 1 })
  })

  it('runs again, whole, when PostgreSQL makes it the victim of a deadlock', async () => {
    const id = await seedCampaign(acme, 'sending', ['pending', 'pending'])
    let cancelling: Promise<unknown> | undefined
    // The other side locks one of the campaign's messages, then the campaign: the reverse order. Its
    // long deadlock_timeout leaves the detection, and so the abort, to the cancel's session.
    await database.sql.begin(async (tx) => {
      await tx`set local deadlock_timeout = '60s'`
      await tx`select id from messages where campaign_id = ${id} limit 1 for update`
      cancelling = cancel(acme, id).catch((error: unknown) => error)
      await eventually(async () => (await lockWaiters()) > 0, { what: 'the cancel waiting for the row lock' })
      await tx`update campaigns set updated_at = now() where id = ${id}`
    })
    expect(await cancelling).toEqual({ status: 'cancelled', sent: 0, cancelled: 2 })
    expect(await statusesOf(id)).toEqual({ cancelled: 2 })
  })

  it('waits out a dispatch batch holding the campaign, then holds back the rows it inserted', async () => {
    const id = await seedCampaign(acme, 'dispatching', ['pending'])
    let batchLocked!: () => void
    const locked = new Promise<void>((resolve) => {
      batchLocked = resolve
    })
    let cancelling: Promise<unknown> | undefined
    // A dispatch batch as the worker runs it: the campaign row locked, messages inserted, then COMMIT.
    await database.sql.begin(async (tx) => {
      await tx`select id from campaigns where id = ${id} for update`
      batchLocked()
      await tx`
        insert into messages (tenant_id, campaign_id, lane, status, to_address)
        select ${acme}, ${id}, 'bulk', 'pending', 'late' || n || '@example.test'
        from generate_series(1, 5) as n`
      await locked
      cancelling = cancel(acme, id)
      // Give the cancel time to reach the row lock before the batch commits.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect((await campaignRow(id))?.status).toBe('dispatching')
    })
    expect(await cancelling).toEqual({ status: 'cancelled', sent: 0, cancelled: 6 })
    expect(await statusesOf(id)).toEqual({ cancelled: 6 })
  })
})

/** Sessions of this test's pool waiting for a lock (the cancel, once it reaches a locked row). */
async function lockWaiters(): Promise<number> {
  const [row] = await database.sql<{ count: number }[]>`
    select count(*)::int as count from pg_stat_activity
    where datname = current_database() and application_name = 'campaigns-test' and wait_event_type = 'Lock'`
  return row?.count ?? 0
}
