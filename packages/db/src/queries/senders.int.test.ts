import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns, contacts, sendingDomains } from '../schema'
import { dispatchCampaignBatch } from './dispatch'
import { findDefaultSender, findSenderDomain, listVerifiedDomainNames, updateDefaultSender } from './senders'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-senders')

let database: DatabaseHandle
let tenantId: string
let otherId: string
let domainId: string

const EMPTY_DKIM = { active: null, pending: null, retired: [], activeFailedChecks: 0 }

async function addDomain(tenant: string, name: string, status: 'pending' | 'verified' | 'failed') {
  const [row] = await database.db
    .insert(sendingDomains)
    .values({ tenantId: tenant, name, status, returnPathLabel: 'fl-bounces', dkim: EMPTY_DKIM })
    .returning({ id: sendingDomains.id })
  if (!row) throw new Error('no domain')
  return row.id
}

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'db-senders-test' })
  tenantId = (await createTenant(database.db, { name: 'Acme' })).id
  otherId = (await createTenant(database.db, { name: 'Globex' })).id
  domainId = await addDomain(tenantId, 'acme.test', 'verified')
  await addDomain(tenantId, 'pending.acme.test', 'pending')
  await addDomain(otherId, 'globex.test', 'verified')
  await database.db.insert(contacts).values([1, 2, 3].map((n) => ({ tenantId, email: `c${n}@example.com` })))
})

afterAll(async () => {
  await database?.close()
})

async function dueCampaign(sender: { fromAddress?: string; replyTo?: string } = {}): Promise<string> {
  const [row] = await database.db
    .insert(campaigns)
    .values({
      tenantId,
      name: 'News',
      subject: 'Hi',
      html: '<p>Hi</p>',
      status: 'scheduled',
      sendAt: new Date(Date.now() - 1_000),
      ...sender,
    })
    .returning({ id: campaigns.id })
  if (!row) throw new Error('no campaign')
  return row.id
}

async function dispatchedSenders(campaignId: string) {
  let done = false
  while (!done) {
    const batch = await dispatchCampaignBatch(database.db, { campaignId, batchSize: 2 })
    if (batch.kind !== 'batch') throw new Error('campaign was skipped')
    done = batch.done
  }
  return database.db.execute<{
    from_address: string | null
    reply_to: string | null
    sending_domain_id: string | null
  }>(sql`select distinct from_address, reply_to, sending_domain_id from messages
    where campaign_id = ${campaignId}`)
}

describe('sender queries', () => {
  it('finds a domain only for its own tenant, in any status', async () => {
    expect(await findSenderDomain(database.db, { tenantId, name: 'acme.test' })).toEqual({
      id: domainId,
      status: 'verified',
    })
    expect(await findSenderDomain(database.db, { tenantId, name: 'pending.acme.test' })).toMatchObject({
      status: 'pending',
    })
    expect(await findSenderDomain(database.db, { tenantId, name: 'globex.test' })).toBeNull()
    expect(await listVerifiedDomainNames(database.db, { tenantId })).toEqual(['acme.test'])
    expect(await listVerifiedDomainNames(database.db, { tenantId: otherId })).toEqual(['globex.test'])
  })

  it('sets and clears one tenant’s default sender only', async () => {
    await updateDefaultSender(database.db, { tenantId: otherId, from: 'a@globex.test', replyTo: 'r@x.test' })
    expect(await findDefaultSender(database.db, { tenantId: otherId })).toEqual({
      from: 'a@globex.test',
      replyTo: 'r@x.test',
    })
    expect(await findDefaultSender(database.db, { tenantId })).toEqual({ from: null, replyTo: null })
    await updateDefaultSender(database.db, { tenantId: otherId, from: null, replyTo: null })
    expect(await findDefaultSender(database.db, { tenantId: otherId })).toEqual({ from: null, replyTo: null })
  })
})

describe('campaign dispatch', () => {
  it('copies the campaign’s From and Reply-To, with its domain, to every message row', async () => {
    const campaignId = await dueCampaign({
      fromAddress: '"News" <news@acme.test>',
      replyTo: 'help@acme.test',
    })
    expect(await dispatchedSenders(campaignId)).toEqual([
      { from_address: '"News" <news@acme.test>', reply_to: 'help@acme.test', sending_domain_id: domainId },
    ])
  })

  it('uses the tenant’s default at dispatch time when the campaign names none', async () => {
    const campaignId = await dueCampaign()
    await updateDefaultSender(database.db, { tenantId, from: 'hello@acme.test', replyTo: null })
    try {
      expect(await dispatchedSenders(campaignId)).toEqual([
        { from_address: 'hello@acme.test', reply_to: null, sending_domain_id: domainId },
      ])
    } finally {
      await updateDefaultSender(database.db, { tenantId, from: null, replyTo: null })
    }
  })

  it('sends from the platform without either', async () => {
    const campaignId = await dueCampaign({ replyTo: 'help@acme.test' })
    expect(await dispatchedSenders(campaignId)).toEqual([
      { from_address: null, reply_to: 'help@acme.test', sending_domain_id: null },
    ])
  })
})
