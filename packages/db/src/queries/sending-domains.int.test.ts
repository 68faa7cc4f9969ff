import { initialRotationState, type NewDkimKey } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../index'
import { dkimKeys, messages, outbox, sendingDomains, webhookDeliveries, webhookEndpoints } from '../schema'
import { findSigningDomain } from './sender-signing'
import {
  claimDueSendingDomains,
  deleteSendingDomain,
  findSendingDomain,
  insertSendingDomain,
  listSendingDomains,
  updateSendingDomain,
} from './sending-domains'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-sending-domains')
let database: DatabaseHandle
let acme: string
let globex: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 6 })
  acme = (await createTenant(database.db, { name: 'Acme' })).id
  globex = (await createTenant(database.db, { name: 'Globex' })).id
})
afterAll(async () => {
  await database?.close()
})

const key = (selector: string): NewDkimKey => ({
  selector,
  publicKey: `PUB-${selector}`,
  privateKeyCiphertext: `iv.tag.${selector}`,
  encryptionKeyId: '1',
})

function add(tenantId: string, name: string, nextCheckAt = new Date()) {
  return insertSendingDomain(database.db, {
    tenantId,
    name,
    returnPathLabel: 'fl-bounces',
    ownershipToken: `token-${tenantId.slice(0, 8)}`,
    dkim: initialRotationState('fl202612aaaa', new Date()),
    key: key('fl202612aaaa'),
    nextCheckAt,
  })
}

describe('sending domain queries', () => {
  it('inserts a domain with its key, refuses the same name twice per tenant, and gives the second tenant an ownership token', async () => {
    const first = await add(acme, 'one.test')
    expect(first).toMatchObject({ name: 'one.test', status: 'pending', ownershipToken: null })
    expect(first?.keys.map((entry) => entry.selector)).toEqual(['fl202612aaaa'])
    expect(JSON.stringify(first)).not.toContain('iv.tag')
    expect(await add(acme, 'one.test')).toBeNull()
    const second = await add(globex, 'one.test')
    expect(second?.ownershipToken).toBe(`token-${globex.slice(0, 8)}`)
  })

  it('keeps tenants apart: another tenant id finds, updates and deletes nothing', async () => {
    const domain = await add(acme, 'apart.test')
    if (!domain) throw new Error('not added')
    expect(await findSendingDomain(database.db, { tenantId: globex, domainId: domain.id })).toBeNull()
    expect((await listSendingDomains(database.db, { tenantId: globex })).map((d) => d.name)).not.toContain(
      'apart.test',
    )
    expect(
      await updateSendingDomain(database.db, { tenantId: globex, domainId: domain.id }, () => ({
        status: 'verified',
      })),
    ).toBeNull()
    expect(await deleteSendingDomain(database.db, { tenantId: globex, domainId: domain.id })).toBeNull()
    expect((await findSendingDomain(database.db, { tenantId: acme, domainId: domain.id }))?.status).toBe(
      'pending',
    )
  })

  it('claims each due domain once across concurrent claimers, leasing it forward', async () => {
    const past = new Date(Date.now() - 60_000)
    const names = Array.from({ length: 8 }, (_, index) => `due-${index}.test`)
    for (const name of names) await add(acme, name, past)
    // Rounds of four concurrent claimers until none is left: a claimer that meets the others' locks
    // skips those rows and may leave the rest for the next round (SKIP LOCKED), but no domain is
    // ever claimed twice while its lease runs.
    const ids: string[] = []
    for (let round = 0; round < 8; round++) {
      const claims = await Promise.all(
        Array.from({ length: 4 }, () => claimDueSendingDomains(database.db, { limit: 5, leaseMs: 60_000 })),
      )
      if (claims.flat().length === 0) break
      ids.push(...claims.flat().map((claim) => claim.domainId))
    }
    expect(new Set(ids).size).toBe(ids.length)
    const ours = await database.db
      .select({ id: sendingDomains.id })
      .from(sendingDomains)
      .where(sql`${sendingDomains.name} in ${names}`)
    expect(ids).toEqual(expect.arrayContaining(ours.map((row) => row.id)))
    const [row] = await database.db
      .select({ due: sql<number>`count(*)::int` })
      .from(sendingDomains)
      .where(sql`next_check_at <= now()`)
    expect(row?.due).toBe(0)
  })

  it('takes tenants in turns: at most perTenant of one tenant per claim, oldest first within each', async () => {
    const busy = (await createTenant(database.db, { name: 'Busy' })).id
    const quiet = (await createTenant(database.db, { name: 'Quiet' })).id
    for (let index = 0; index < 8; index += 1) {
      await add(busy, `busy-${index}.test`, new Date(Date.now() - 3_600_000 + index * 1000))
    }
    await add(quiet, 'quiet.test', new Date(Date.now() - 1000))
    const claimed = await claimDueSendingDomains(database.db, { limit: 5, leaseMs: 60_000, perTenant: 2 })
    const names = await database.db
      .select({ id: sendingDomains.id, name: sendingDomains.name })
      .from(sendingDomains)
      .where(sql`${sendingDomains.id} in ${claimed.map((claim) => claim.domainId)}`)
    expect(names.map((row) => row.name).sort()).toEqual(['busy-0.test', 'busy-1.test', 'quiet.test'])
    // The next claims take the busy tenant's next oldest, two at a time.
    const next = await claimDueSendingDomains(database.db, { limit: 5, leaseMs: 60_000, perTenant: 2 })
    expect(next.map((claim) => claim.tenantId)).toEqual([busy, busy])
  })

  it('releases held mail in the status change: API mail queued with an outbox row, campaign mail pending', async () => {
    const domain = await add(acme, 'held.test')
    if (!domain) throw new Error('not added')
    const [api, bulk, sent] = await database.db
      .insert(messages)
      .values([
        {
          tenantId: acme,
          lane: 'default',
          status: 'held',
          toAddress: 'a@x.test',
          sendingDomainId: domain.id,
        },
        { tenantId: acme, lane: 'bulk', status: 'held', toAddress: 'b@x.test', sendingDomainId: domain.id },
        {
          tenantId: acme,
          lane: 'default',
          status: 'sent',
          toAddress: 'c@x.test',
          sendingDomainId: domain.id,
        },
      ])
      .returning({ id: messages.id })
    const result = await updateSendingDomain(database.db, { tenantId: acme, domainId: domain.id }, () => ({
      status: 'verified',
      releaseHeld: true,
    }))
    expect(result?.releasedMessages).toBe(2)
    const rows = await database.db
      .select({ id: messages.id, status: messages.status, generation: messages.generation })
      .from(messages)
      .where(eq(messages.sendingDomainId, domain.id))
    const byId = new Map(rows.map((row) => [row.id, row]))
    expect(byId.get(api?.id ?? '')).toMatchObject({ status: 'queued', generation: 1 })
    expect(byId.get(bulk?.id ?? '')).toMatchObject({ status: 'pending', generation: 1 })
    expect(byId.get(sent?.id ?? '')).toMatchObject({ status: 'sent', generation: 0 })
    const events = await database.db
      .select({ payload: outbox.payload })
      .from(outbox)
      .where(sql`${outbox.payload}->>'messageId' in (${api?.id}, ${bulk?.id})`)
    expect(events.map((event) => event.payload)).toEqual([
      { v: 1, messageId: api?.id, tenantId: acme, lane: 'default', generation: 1 },
    ])
  })

  it('tells subscribed webhook endpoints when a domain turns verified or failed, once per change', async () => {
    const tenantId = (await createTenant(database.db, { name: 'Hooked domains' })).id
    const [endpoint] = await database.db
      .insert(webhookEndpoints)
      .values({
        tenantId,
        url: 'https://hooks.example.com/in',
        events: ['domain.verified', 'domain.failed'],
        secret: 'whsec_x',
      })
      .returning({ id: webhookEndpoints.id })
    const domain = await add(tenantId, 'hooked.test')
    if (!domain || !endpoint) throw new Error('not added')
    const where = { tenantId, domainId: domain.id }
    await updateSendingDomain(database.db, where, () => ({ status: 'verified' }))
    await updateSendingDomain(database.db, where, () => ({ status: 'verified', checkCount: 2 }))
    await updateSendingDomain(database.db, where, () => ({
      status: 'failed',
      failureReason: 'DKIM record gone',
    }))
    const rows = await database.db
      .select({ type: webhookDeliveries.eventType, payload: webhookDeliveries.payload })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.id))
      .orderBy(webhookDeliveries.createdAt)
    expect(rows.map((row) => row.type)).toEqual(['domain.verified', 'domain.failed'])
    expect(rows[1]?.payload).toMatchObject({
      type: 'domain.failed',
      data: { domainId: domain.id, name: 'hooked.test', status: 'failed', failureReason: 'DKIM record gone' },
    })
  })

  it('refuses to delete a domain with open mail, saying how many; deletes it (and its keys) otherwise', async () => {
    const domain = await add(acme, 'open.test')
    if (!domain) throw new Error('not added')
    await database.db.insert(messages).values([
      {
        tenantId: acme,
        lane: 'default',
        status: 'queued',
        toAddress: 'a@x.test',
        sendingDomainId: domain.id,
      },
      { tenantId: acme, lane: 'bulk', status: 'held', toAddress: 'b@x.test', sendingDomainId: domain.id },
      { tenantId: acme, lane: 'bulk', status: 'sent', toAddress: 'kept@x.test', sendingDomainId: domain.id },
    ])
    const query = { tenantId: acme, domainId: domain.id }
    expect(await deleteSendingDomain(database.db, query)).toEqual({ deleted: false, openMessages: 2 })
    await database.db
      .update(messages)
      .set({ status: 'cancelled' })
      .where(and(eq(messages.sendingDomainId, domain.id), sql`status in ('queued', 'held')`))
    expect(await deleteSendingDomain(database.db, query)).toEqual({ deleted: true, openMessages: 0 })
    expect(await database.db.select().from(dkimKeys).where(eq(dkimKeys.domainId, domain.id))).toEqual([])
    const history = await database.db
      .select({ domain: messages.sendingDomainId })
      .from(messages)
      .where(eq(messages.toAddress, 'kept@x.test'))
    expect(history).toEqual([{ domain: null }])
  })

  it('gives the signer the key the rotation state names, and none before the first record verified', async () => {
    const domain = await add(acme, 'signer.test')
    if (!domain) throw new Error('not added')
    const query = { tenantId: acme, domainId: domain.id }
    expect(await findSigningDomain(database.db, query)).toMatchObject({
      name: 'signer.test',
      status: 'pending',
      dkim: { active: null },
      activeKey: null,
    })
    await updateSendingDomain(database.db, query, (current) => ({
      status: 'verified',
      dkim: { ...current.dkim, active: current.dkim.pending, pending: null },
    }))
    expect(await findSigningDomain(database.db, query)).toMatchObject({
      status: 'verified',
      returnPathLabel: 'fl-bounces',
      dkim: { active: { selector: 'fl202612aaaa' } },
      activeKey: { selector: 'fl202612aaaa', ciphertext: 'iv.tag.fl202612aaaa', encryptionKeyId: '1' },
    })
    expect(await findSigningDomain(database.db, { tenantId: globex, domainId: domain.id })).toBeUndefined()
  })
})
