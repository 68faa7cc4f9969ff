import { randomUUID } from 'node:crypto'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns, contacts, listMembers, lists, messages } from '../schema'
import { claimMessage, failAfterFinalAttempt, releaseMessage, unclaimMessage } from './delivery'
import { dispatchCampaignBatch } from './dispatch'
import { deleteMessageEventsBefore, listMessageEvents, recordMessageEvents } from './message-events'
import { claimBulkRelease, returnBulkRelease } from './pacer'
import { suppressAddress } from './suppressions'
import { createTenant } from './tenants'
import { createUnsubscribeStore } from './unsubscribe'

/**
 * The statements that write a message's events with the change they describe, one by one: each
 * event exists exactly when its change does.
 */
const env = setupTestEnvironment('db-message-events')

let database: DatabaseHandle
let tenantId: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'db-message-events-test' })
  tenantId = (await createTenant(database.db, { name: 'Events' })).id
})
afterAll(async () => {
  await database?.close()
})

const typesOf = async (messageId: string) =>
  (await listMessageEvents(database.db, { tenantId, messageId })).map((event) => event.type)
const lastOf = async (messageId: string) =>
  (await listMessageEvents(database.db, { tenantId, messageId })).at(-1)

async function insertMessage(values: Partial<typeof messages.$inferInsert> = {}): Promise<string> {
  const [row] = await database.db
    .insert(messages)
    .values({
      tenantId,
      lane: 'default',
      status: 'queued',
      toAddress: `reader-${randomUUID()}@example.com`,
      subject: 'Hi',
      text: 'Hi',
      ...values,
    })
    .returning({ id: messages.id })
  if (!row) throw new Error('no message')
  return row.id
}

async function claimed(values: Partial<typeof messages.$inferInsert> = {}) {
  const id = await insertMessage(values)
  const claim = await claimMessage(database.db, { messageId: id, tenantId, lockMs: 60_000 })
  if (!claim) throw new Error('not claimed')
  return { id, held: { messageId: id, tenantId, lockToken: claim.lockToken } }
}

describe('events written with their change', () => {
  it('a temporary failure is `retrying` when a retry follows, and nothing after the final attempt', async () => {
    const retried = await claimed()
    const note = { error: '451 4.7.1 later', errorCode: 'deferred' as const }
    expect(await releaseMessage(database.db, { ...retried.held, ...note, retryFollows: true })).toBe(true)
    expect(await lastOf(retried.id)).toMatchObject({
      type: 'retrying',
      detail: { code: 'deferred', attempt: 1 },
    })

    const final = await claimed()
    expect(await releaseMessage(database.db, { ...final.held, ...note, retryFollows: false })).toBe(true)
    expect(await typesOf(final.id)).toEqual([])
    // The dead letter then marks it failed, keeping the attempt's classified code.
    const row = await failAfterFinalAttempt(database.db, {
      messageId: final.id,
      tenantId,
      generation: 0,
      error: 'wrapped',
      errorCode: 'connection_failed',
    })
    expect(row?.status).toBe('failed')
    expect(await lastOf(final.id)).toMatchObject({
      type: 'failed',
      detail: { code: 'deferred', attempts: 1 },
    })
    // A repeated final-failure event changes nothing, and writes nothing.
    await failAfterFinalAttempt(database.db, {
      messageId: final.id,
      tenantId,
      generation: 0,
      error: 'again',
      errorCode: 'connection_failed',
    })
    expect(await typesOf(final.id)).toEqual(['failed'])

    // A release by a claim that was taken over changes nothing and writes nothing.
    expect(
      await releaseMessage(database.db, {
        ...retried.held,
        lockToken: randomUUID(),
        ...note,
        retryFollows: true,
      }),
    ).toBe(false)
    expect(await typesOf(retried.id)).toEqual(['retrying'])
  })

  it('a send given back for want of a token is `deferred` until its retry; none if its campaign was cancelled', async () => {
    const untilMs = Date.now() + 1_500
    const deferred = await claimed()
    expect(await unclaimMessage(database.db, { ...deferred.held, untilMs })).toBe(true)
    expect(await lastOf(deferred.id)).toMatchObject({ type: 'deferred', detail: { untilMs } })

    const [campaign] = await database.db
      .insert(campaigns)
      .values({ tenantId, name: 'Cancelled', subject: 'Hi', html: '<p>Hi</p>', status: 'cancelled' })
      .returning({ id: campaigns.id })
    const cancelled = await claimed({ campaignId: campaign?.id, lane: 'bulk' })
    expect(await unclaimMessage(database.db, { ...cancelled.held, untilMs })).toBe(true)
    expect(await typesOf(cancelled.id)).toEqual([])
  })

  it('the pacer’s claim is `queued`; handing the claim back takes that event back, and only that one', async () => {
    const ids = [
      await insertMessage({ lane: 'bulk', status: 'pending' }),
      await insertMessage({ lane: 'bulk', status: 'pending' }),
    ]
    await recordMessageEvents(
      database.db,
      ids.map((messageId) => ({ tenantId, messageId, type: 'accepted' as const })),
    )
    const released = await database.db.transaction((tx) => claimBulkRelease(tx, [{ tenantId, count: 10 }]))
    expect(released.map((row) => row.messageId).sort()).toEqual([...ids].sort())
    for (const id of ids) expect(await typesOf(id)).toEqual(['accepted', 'queued'])
    expect(await lastOf(ids[0] as string)).toMatchObject({ detail: { lane: 'bulk' } })

    // One of them was taken by a worker meanwhile (its job reached Redis after all): it keeps its event.
    await claimMessage(database.db, { messageId: ids[1] as string, tenantId, lockMs: 60_000 })
    expect(await returnBulkRelease(database.db, released)).toBe(1)
    expect(await typesOf(ids[0] as string)).toEqual(['accepted'])
    expect(await typesOf(ids[1] as string)).toEqual(['accepted', 'queued'])
  })

  it('dispatch writes every message’s `accepted`, and a left-out one’s `suppressed` with its reason after it', async () => {
    const [list] = await database.db
      .insert(lists)
      .values({ tenantId, name: 'Audience' })
      .returning({ id: lists.id })
    const listId = list?.id as string
    const people = await database.db
      .insert(contacts)
      .values([
        { tenantId, email: 'kept@example.com' },
        { tenantId, email: 'left@example.com', unsubscribedAt: new Date() },
        { tenantId, email: 'bounced@example.com' },
      ])
      .returning({ id: contacts.id, email: contacts.email })
    await database.db.insert(listMembers).values(people.map((c) => ({ tenantId, listId, contactId: c.id })))
    await suppressAddress(database.db, { tenantId, email: 'bounced@example.com', reason: 'hard-bounce' })
    const [campaign] = await database.db
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
    const campaignId = campaign?.id as string
    expect(await dispatchCampaignBatch(database.db, { campaignId, batchSize: 10 })).toMatchObject({
      inserted: 3,
      excluded: 2,
    })
    const rows = await database.db.execute<{ id: string; to_address: string }>(
      sql`select id, to_address from messages where campaign_id = ${campaignId}`,
    )
    const byAddress = new Map(rows.map((row) => [row.to_address, row.id]))
    const story = async (email: string) =>
      (await listMessageEvents(database.db, { tenantId, messageId: byAddress.get(email) as string })).map(
        ({ type, detail }) => ({ type, detail }),
      )
    const accepted = { type: 'accepted', detail: { lane: 'bulk', campaignId } }
    expect(await story('kept@example.com')).toEqual([accepted])
    expect(await story('left@example.com')).toEqual([
      accepted,
      { type: 'suppressed', detail: { reason: 'unsubscribe' } },
    ])
    expect(await story('bounced@example.com')).toEqual([
      accepted,
      { type: 'suppressed', detail: { reason: 'hard-bounce' } },
    ])
    // A batch run again (a dispatcher that lost its cursor) inserts nothing, so writes no event.
    await database.db.execute(
      sql`update campaigns set dispatch_cursor = null, status = 'dispatching' where id = ${campaignId}`,
    )
    expect(await dispatchCampaignBatch(database.db, { campaignId, batchSize: 10 })).toMatchObject({
      inserted: 0,
    })
    expect(await story('kept@example.com')).toEqual([accepted])

    // The recipient uses the message's link: `unsubscribed` on that message, once, however many clicks.
    const store = createUnsubscribeStore(database.db)
    const kept = people.find((c) => c.email === 'kept@example.com')?.id as string
    const click = { tenantId, contactId: kept, campaignId, now: new Date() }
    await store.unsubscribe({ ...click, source: 'one-click' })
    await store.unsubscribe({ ...click, source: 'link' })
    expect(await story('kept@example.com')).toEqual([
      accepted,
      { type: 'unsubscribed', detail: { source: 'one-click' } },
    ])
  })
})

describe('retention', () => {
  it('deletes at most a batch of events older than the cut-off per statement', async () => {
    const messageId = randomUUID()
    const old = new Date(Date.now() - 40 * 24 * 3_600_000)
    await recordMessageEvents(
      database.db,
      Array.from({ length: 5 }, () => ({ tenantId, messageId, type: 'deferred' as const, at: old })),
    )
    await recordMessageEvents(database.db, [{ tenantId, messageId, type: 'sent' }])
    const before = new Date(Date.now() - 30 * 24 * 3_600_000)
    expect(await deleteMessageEventsBefore(database.db, { before, limit: 3 })).toBe(3)
    expect(await deleteMessageEventsBefore(database.db, { before, limit: 3 })).toBe(2)
    expect(await deleteMessageEventsBefore(database.db, { before, limit: 3 })).toBe(0)
    expect(await typesOf(messageId)).toEqual(['sent'])
  })
})

describe('a deleted tenant', () => {
  it('takes its events with it (the trigger on tenants), and leaves another tenant’s', async () => {
    const leaving = (await createTenant(database.db, { name: 'Leaving' })).id
    const staying = (await createTenant(database.db, { name: 'Staying' })).id
    const messageId = randomUUID()
    await recordMessageEvents(database.db, [
      { tenantId: leaving, messageId, type: 'accepted' },
      { tenantId: leaving, messageId, type: 'sent' },
      { tenantId: staying, messageId: randomUUID(), type: 'accepted' },
    ])
    const count = async (id: string) => {
      const [row] = await database.db.execute<{ n: number }>(
        sql`select count(*)::int as n from message_events where tenant_id = ${id}`,
      )
      return row?.n
    }
    expect(await count(leaving)).toBe(2)
    await database.db.execute(sql`delete from tenants where id = ${leaving}`)
    expect(await count(leaving)).toBe(0)
    expect(await count(staying)).toBe(1)
  })
})
