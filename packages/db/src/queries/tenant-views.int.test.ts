import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { campaigns, messages, type NewMessage } from '../schema'
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from './api-keys'
import { countBacklog, countSentSince, listRecentCampaigns, listRecentMessages } from './dashboard'
import { listMessageLog } from './messages-log'
import { findMessageDetail } from './messages-read'
import { createTenant } from './tenants'

/** The accounts pages' queries (dashboard, messages log, API keys) never show one tenant another's rows. */
const env = setupTestEnvironment('tenant-views')

let database: DatabaseHandle
const KEY_ACTOR = { userId: null, label: 'owner@example.test', ipAddress: '203.0.113.9' }
let acme: string
let globex: string

const message = (tenantId: string, overrides: Partial<NewMessage> = {}): NewMessage => ({
  tenantId,
  lane: 'default',
  status: 'queued',
  toAddress: 'someone@example.test',
  template: 'welcome',
  ...overrides,
})

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'tenant-views-test' })
  const { db } = database
  acme = (await createTenant(db, { name: 'Acme' })).id
  globex = (await createTenant(db, { name: 'Globex' })).id
  const now = Date.now()
  await db.insert(messages).values([
    message(acme, {
      status: 'sent',
      sentAt: new Date(now - 60_000),
      toAddress: 'ann@acme.test',
      lane: 'critical',
      template: 'otp',
    }),
    message(acme, { status: 'sent', sentAt: new Date(now - 3 * 86_400_000), toAddress: 'old@acme.test' }),
    message(acme, { status: 'queued', toAddress: 'bob@acme.test' }),
    message(acme, {
      status: 'failed',
      toAddress: 'carol_x@acme.test',
      lastError: '550 no such user at relay-7.internal.example',
      lastErrorCode: 'recipient_unknown',
      attempts: 3,
    }),
    message(globex, { status: 'sent', sentAt: new Date(now), toAddress: 'ann@globex.test' }),
    message(globex, { status: 'pending', lane: 'bulk', toAddress: 'z@globex.test' }),
    message(globex, { status: 'queued', toAddress: 'y@globex.test' }),
  ])
  // 60 more for paging, created one millisecond apart plus ties, so the keyset boundary is exercised.
  const base = now - 10 * 60_000
  await db.insert(messages).values(
    Array.from({ length: 60 }, (_, i) =>
      message(acme, {
        status: 'sent',
        sentAt: new Date(base),
        toAddress: `page-${i}@acme.test`,
        createdAt: new Date(base + Math.floor(i / 3)),
      }),
    ),
  )
  await db.insert(campaigns).values([
    { tenantId: acme, name: 'Acme spring', subject: 's', html: '<p>x</p>' },
    { tenantId: globex, name: 'Globex launch', subject: 's', html: '<p>x</p>' },
  ])
})

afterAll(async () => {
  await database?.close()
})

describe('dashboard queries', () => {
  it('count and list only the tenant’s own rows', async () => {
    const { db } = database
    const today = new Date(Date.now() - 2 * 86_400_000)
    expect(await countSentSince(db, { tenantId: acme, since: today })).toBe(61)
    expect(await countSentSince(db, { tenantId: globex, since: today })).toBe(1)
    expect(await countBacklog(db, { tenantId: acme })).toEqual({ pending: 0, queued: 1 })
    expect(await countBacklog(db, { tenantId: globex })).toEqual({ pending: 1, queued: 1 })
    expect((await listRecentCampaigns(db, { tenantId: acme, limit: 5 })).map((c) => c.name)).toEqual([
      'Acme spring',
    ])
    const recent = await listRecentMessages(db, { tenantId: globex, limit: 10 })
    expect(recent.every((row) => row.toAddress.endsWith('@globex.test'))).toBe(true)
  })
})

describe('messages log', () => {
  it('filters by status, lane and recipient (with % and _ taken literally) within the tenant', async () => {
    const { db } = database
    const failed = await listMessageLog(db, { tenantId: acme, status: 'failed', limit: 50 })
    expect(failed.map((row) => [row.toAddress, row.lastErrorCode, row.attempts])).toEqual([
      ['carol_x@acme.test', 'recipient_unknown', 3],
    ])
    // The raw reply (relay names) is not part of the tenant's log.
    expect(JSON.stringify(failed)).not.toContain('relay-7')
    const critical = await listMessageLog(db, { tenantId: acme, lane: 'critical', limit: 50 })
    expect(critical.map((row) => row.toAddress)).toEqual(['ann@acme.test'])
    expect((await listMessageLog(db, { tenantId: acme, recipient: 'ANN@', limit: 50 })).length).toBe(1)
    expect((await listMessageLog(db, { tenantId: acme, recipient: 'l_x', limit: 50 })).length).toBe(1)
    expect((await listMessageLog(db, { tenantId: acme, recipient: '%', limit: 50 })).length).toBe(0)
    expect(await listMessageLog(db, { tenantId: acme, recipient: 'globex', limit: 50 })).toEqual([])
  })

  it('pages by keyset without skipping or repeating rows, and ignores another tenant’s cursor', async () => {
    const { db } = database
    const seen: string[] = []
    let after: string | undefined
    for (;;) {
      const rows = await listMessageLog(db, { tenantId: acme, limit: 7, after })
      seen.push(...rows.slice(0, 7).map((row) => row.id))
      if (rows.length <= 7) break
      after = rows[6]?.id
    }
    expect(seen).toHaveLength(64)
    expect(new Set(seen).size).toBe(64)

    const [theirs] = await listMessageLog(db, { tenantId: globex, limit: 1 })
    expect(await listMessageLog(db, { tenantId: acme, limit: 7, after: theirs?.id })).toEqual([])
  })
})

describe('message story', () => {
  it('lists one campaign’s recipients only, and shows a message’s detail to its own tenant only', async () => {
    const { db } = database
    const [campaign] = await db
      .insert(campaigns)
      .values({ tenantId: acme, name: 'Story', subject: 'Hi', html: '<p>Hi</p>', status: 'sent' })
      .returning({ id: campaigns.id })
    if (!campaign) throw new Error('no campaign')
    const [sent, failed] = await db
      .insert(messages)
      .values([
        message(acme, {
          campaignId: campaign.id,
          lane: 'bulk',
          status: 'sent',
          toAddress: 'r1@story.test',
          html: '<p>Hi r1</p>',
          text: 'Hi r1',
        }),
        message(acme, {
          campaignId: campaign.id,
          lane: 'bulk',
          status: 'failed',
          toAddress: 'r2@story.test',
          lastErrorCode: 'recipient_unknown',
          lastError: '550 5.1.1 relay-7.internal says no',
        }),
      ])
      .returning({ id: messages.id })
    const all = await listMessageLog(db, { tenantId: acme, campaignId: campaign.id, limit: 50 })
    expect(all.map((row) => row.toAddress).sort()).toEqual(['r1@story.test', 'r2@story.test'])
    const onlyFailed = await listMessageLog(db, {
      tenantId: acme,
      campaignId: campaign.id,
      status: 'failed',
      limit: 50,
    })
    expect(onlyFailed.map((row) => row.toAddress)).toEqual(['r2@story.test'])
    // The API log leaves campaign mail out, and another tenant sees none of it.
    expect(
      (await listMessageLog(db, { tenantId: acme, limit: 50 })).some((row) =>
        row.toAddress.endsWith('@story.test'),
      ),
    ).toBe(false)
    expect(await listMessageLog(db, { tenantId: globex, campaignId: campaign.id, limit: 50 })).toEqual([])

    const detail = await findMessageDetail(db, { tenantId: acme, messageId: sent?.id ?? '' })
    expect(detail).toMatchObject({
      toAddress: 'r1@story.test',
      campaignName: 'Story',
      html: '<p>Hi r1</p>',
      text: 'Hi r1',
    })
    const failure = await findMessageDetail(db, { tenantId: acme, messageId: failed?.id ?? '' })
    expect(failure).toMatchObject({ lastErrorCode: 'recipient_unknown' })
    expect(JSON.stringify(failure)).not.toContain('relay-7.internal')
    expect(await findMessageDetail(db, { tenantId: globex, messageId: sent?.id ?? '' })).toBeNull()
  })
})

describe('API keys', () => {
  it('lists, finds and revokes only within the tenant: another tenant’s key id is not found', async () => {
    const { db } = database
    const mine = await createApiKey(db, {
      tenantId: acme,
      name: 'Acme prod',
      prefix: 'fl_acme00001',
      keyHash: 'a'.repeat(64),
    })
    const theirs = await createApiKey(db, {
      tenantId: globex,
      name: 'Globex prod',
      prefix: 'fl_globex001',
      keyHash: 'b'.repeat(64),
    })

    expect((await listApiKeys(db, { tenantId: acme, limit: 50 })).map((key) => key.name)).toEqual([
      'Acme prod',
    ])
    expect(await findApiKey(db, { tenantId: acme, keyId: theirs.id })).toBeNull()
    expect(
      await revokeApiKey(db, { tenantId: acme, keyId: theirs.id, now: new Date(), actor: KEY_ACTOR }),
    ).toBe(false)
    expect((await findApiKey(db, { tenantId: globex, keyId: theirs.id }))?.revokedAt).toBeNull()

    expect(
      await revokeApiKey(db, { tenantId: acme, keyId: mine.id, now: new Date(), actor: KEY_ACTOR }),
    ).toBe(true)
    expect((await findApiKey(db, { tenantId: acme, keyId: mine.id }))?.revokedAt).toBeInstanceOf(Date)
    // A second revoke changes nothing and says so.
    expect(
      await revokeApiKey(db, { tenantId: acme, keyId: mine.id, now: new Date(), actor: KEY_ACTOR }),
    ).toBe(false)
  })
})

describe('API keys paging', () => {
  it('pages a long key list newest first without skipping or repeating, and ignores another tenant’s cursor', async () => {
    const { db } = database
    const tenantId = (await createTenant(db, { name: 'Rotator' })).id
    // Keys created in one transaction share created_at to the microsecond: the id breaks the tie.
    await db.transaction(async (tx) => {
      for (let index = 0; index < 23; index++) {
        await createApiKey(tx, {
          tenantId,
          name: `key ${index}`,
          prefix: `fl_rot${String(index).padStart(6, '0')}`,
          keyHash: index.toString(16).padStart(64, 'c'),
        })
      }
    })
    const seen: string[] = []
    let after: string | undefined
    for (let page = 0; page < 10; page++) {
      const rows = await listApiKeys(db, { tenantId, limit: 5, after })
      expect(rows.length).toBeLessThanOrEqual(6)
      seen.push(...rows.slice(0, 5).map((row) => row.id))
      if (rows.length <= 5) break
      after = rows[4]?.id
    }
    expect(seen).toHaveLength(23)
    expect(new Set(seen).size).toBe(23)
    const [theirs] = await listApiKeys(db, { tenantId: acme, limit: 1 })
    expect(await listApiKeys(db, { tenantId, limit: 5, after: theirs?.id })).toEqual([])
  })
})
