import { PACER_CHANNEL } from '@fairlane/core/pacing'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns, contacts, listMembers, lists } from '../schema'
import { COMPLETION_LOCK_KEY, completeFinishedCampaigns, dispatchCampaignBatch } from './dispatch'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-dispatch')

let database: DatabaseHandle
let tenantId: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'db-dispatch-test' })
  tenantId = (await createTenant(database.db, { name: 'Acme' })).id
})

afterAll(async () => {
  await database?.close()
})

async function dueCampaign(listId: string): Promise<string> {
  const [row] = await database.db
    .insert(campaigns)
    .values({
      tenantId,
      name: 'News',
      subject: 'Hi',
      html: '<p>Hi</p>',
      listId,
      status: 'scheduled',
      sendAt: new Date(Date.now() - 1_000),
    })
    .returning({ id: campaigns.id })
  if (!row) throw new Error('no campaign')
  return row.id
}

async function newList(name: string): Promise<string> {
  const [row] = await database.db.insert(lists).values({ tenantId, name }).returning({ id: lists.id })
  if (!row) throw new Error('no list')
  return row.id
}

async function campaignRow(campaignId: string) {
  const [row] = await database.db.execute<{
    status: string
    recipient_count: number
    completed_at: Date | null
  }>(sql`select status, recipient_count, completed_at from campaigns where id = ${campaignId}`)
  return row
}

describe('dispatchCampaignBatch', () => {
  it('ends a campaign whose audience is empty at send time as sent, with no messages, in the same batch', async () => {
    const campaignId = await dueCampaign(await newList('Empty'))
    const batch = await dispatchCampaignBatch(database.db, { campaignId, batchSize: 10 })
    expect(batch).toEqual({ kind: 'batch', inserted: 0, excluded: 0, done: true, endedEmpty: true })
    const row = await campaignRow(campaignId)
    expect(row).toMatchObject({ status: 'sent', recipient_count: 0 })
    expect(row?.completed_at).not.toBeNull()
  })

  it('moves a campaign with recipients to sending, over several batches', async () => {
    const listId = await newList('Three')
    const added = await database.db
      .insert(contacts)
      .values([1, 2, 3].map((n) => ({ tenantId, email: `c${n}@example.com` })))
      .returning({ id: contacts.id })
    await database.db.insert(listMembers).values(added.map((c) => ({ tenantId, listId, contactId: c.id })))
    const campaignId = await dueCampaign(listId)
    const first = await dispatchCampaignBatch(database.db, { campaignId, batchSize: 2 })
    expect(first).toMatchObject({ inserted: 2, done: false, endedEmpty: false })
    expect((await campaignRow(campaignId))?.status).toBe('dispatching')
    const last = await dispatchCampaignBatch(database.db, { campaignId, batchSize: 2 })
    expect(last).toMatchObject({ inserted: 1, done: true, endedEmpty: false })
    expect(await campaignRow(campaignId)).toMatchObject({
      status: 'sending',
      recipient_count: 3,
      completed_at: null,
    })
    // Each batch counted its messages into the tenant's bulk usage of the day, in its own transaction.
    const [usage] = await database.db.execute<{ accepted: number }>(sql`
      select accepted from tenant_usage_days
      where tenant_id = ${tenantId} and lane = 'bulk' and day = (now() at time zone 'UTC')::date`)
    expect(usage?.accepted).toBe(3)
  })

  it('wakes the pacer’s leader at commit (NOTIFY on PACER_CHANNEL) when a batch creates pending mail, not when it creates none', async () => {
    const wakes: string[] = []
    const listener = await database.sql.listen(PACER_CHANNEL, (payload) => wakes.push(payload))
    try {
      const emptyId = await dueCampaign(await newList('Nobody'))
      await dispatchCampaignBatch(database.db, { campaignId: emptyId, batchSize: 10 })
      const listId = await newList('Two')
      const added = await database.db
        .insert(contacts)
        .values([1, 2].map((n) => ({ tenantId, email: `wake${n}@example.com` })))
        .returning({ id: contacts.id })
      await database.db.insert(listMembers).values(added.map((c) => ({ tenantId, listId, contactId: c.id })))
      await dispatchCampaignBatch(database.db, { campaignId: await dueCampaign(listId), batchSize: 10 })
      // One notice for the batch of two (not one per row), none for the empty audience.
      await eventually(() => wakes.length >= 1, { timeoutMs: 5_000, intervalMs: 20, what: 'the pacer wake' })
      await database.sql`select 1`
      expect(wakes).toEqual([''])
    } finally {
      await listener.unlisten()
    }
  })
})

describe('completeFinishedCampaigns', () => {
  /** A campaign `sending` with messages of these statuses. */
  async function sendingCampaign(statuses: string[]): Promise<string> {
    const [row] = await database.db
      .insert(campaigns)
      .values({ tenantId, name: 'Sending', subject: 'Hi', html: '<p>Hi</p>', status: 'sending' })
      .returning({ id: campaigns.id })
    if (!row) throw new Error('no campaign')
    for (const [index, status] of statuses.entries()) {
      await database.db.execute(sql`
        insert into messages (tenant_id, campaign_id, lane, status, to_address)
        values (${tenantId}, ${row.id}, 'bulk', ${status}, ${`r${index}@example.test`})`)
    }
    return row.id
  }

  it('checks a slice of the campaigns sending per call, by id, and rounds again after the last', async () => {
    await database.db.execute(sql`update campaigns set status = 'sent' where status = 'sending'`)
    const ids = [
      await sendingCampaign(['sent', 'failed', 'suppressed']),
      await sendingCampaign(['sent', 'pending']),
      await sendingCampaign(['held']),
      await sendingCampaign(['bounced', 'cancelled']),
      await sendingCampaign(['queued']),
    ].sort()
    const finished = new Set<string>()
    for (const id of ids) {
      const [open] = await database.db.execute<{ open: boolean }>(sql`
        select exists (select 1 from messages where campaign_id = ${id}
          and status in ('pending', 'queued', 'sending', 'held')) as open`)
      if (!open?.open) finished.add(id)
    }

    const first = await completeFinishedCampaigns(database.db, { after: null, limit: 3 })
    expect(first.busy).toBe(false)
    expect(first.next).toBe(ids[2])
    expect(first.completed.map((campaign) => campaign.id).sort()).toEqual(
      ids.slice(0, 3).filter((id) => finished.has(id)),
    )
    // The campaigns after the slice were not looked at yet.
    for (const id of ids.slice(3)) expect((await campaignRow(id))?.status).toBe('sending')

    const second = await completeFinishedCampaigns(database.db, { after: first.next, limit: 3 })
    expect(second.next).toBeNull()
    expect(second.completed.map((campaign) => campaign.id).sort()).toEqual(
      ids.slice(3).filter((id) => finished.has(id)),
    )
    for (const id of ids) {
      const row = await campaignRow(id)
      expect(row?.status).toBe(finished.has(id) ? 'sent' : 'sending')
      if (finished.has(id)) expect(row?.completed_at).not.toBeNull()
    }
    expect(finished.size).toBe(2)
  })

  it('checks nothing while another pass holds the lock, and keeps its place', async () => {
    const id = await sendingCampaign(['sent'])
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${COMPLETION_LOCK_KEY})`)
      const skipped = await completeFinishedCampaigns(database.db, { after: null, limit: 10 })
      expect(skipped).toEqual({ completed: [], next: null, busy: true })
      const kept = await completeFinishedCampaigns(database.db, { after: id, limit: 10 })
      expect(kept).toEqual({ completed: [], next: id, busy: true })
    })
    expect((await campaignRow(id))?.status).toBe('sending')
    const pass = await completeFinishedCampaigns(database.db, { after: null, limit: 10 })
    expect(pass.busy).toBe(false)
    expect(pass.completed.map((campaign) => campaign.id)).toContain(id)
  })
})
