import { createSegment, deleteSegment, renameSegment, type SegmentFilter } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, asc, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../index'
import { campaigns, contacts, suppressions } from '../schema'
import { countAudience } from './audience'
import { segmentFilterSql } from './segment-filter-sql'
import { createSegmentStore, getSegment, listSegments } from './segments'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-segments')
let database: DatabaseHandle
let acme: string
let globex: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 4 })
  const { db } = database
  acme = (await createTenant(db, { name: 'Acme' })).id
  globex = (await createTenant(db, { name: 'Globex' })).id
  const at = (day: string) => new Date(`${day}T12:00:00Z`)
  await db.insert(contacts).values([
    {
      tenantId: acme,
      email: 'ann@example.com',
      attributes: { city: 'Berlin', plan: 'pro' },
      createdAt: at('2025-12-31'),
    },
    {
      tenantId: acme,
      email: 'bob@example.com',
      attributes: { city: 'Berlin', plan: 'free', vip: '' },
      createdAt: at('2026-01-01'),
    },
    {
      tenantId: acme,
      email: 'cat@example.com',
      attributes: { city: 'berlin', plan: 'team', vip: true },
      createdAt: at('2026-01-02'),
    },
    {
      tenantId: acme,
      email: 'dan@example.com',
      attributes: { city: 'Paris', plan: 'team', seats: 3 },
      createdAt: at('2026-02-01'),
    },
    { tenantId: acme, email: 'eve@example.com', attributes: {}, createdAt: at('2026-03-01') },
    {
      tenantId: acme,
      email: 'mal@example.com',
      attributes: { city: "Berlin' or '1'='1", "x') or true --": 'boom' },
      createdAt: at('2026-03-01'),
    },
    { tenantId: globex, email: 'zed@example.com', attributes: { city: 'Berlin', plan: 'pro' } },
  ])
})

afterAll(async () => {
  await database?.close()
})

/** The emails of the tenant's contacts the filter matches, compiled exactly as dispatch does. */
async function matching(filter: SegmentFilter, tenantId = acme): Promise<string[]> {
  const rows = await database.db
    .select({ email: contacts.email })
    .from(contacts)
    .where(and(eq(contacts.tenantId, tenantId), segmentFilterSql(filter)))
    .orderBy(asc(contacts.email))
  return rows.map((row) => row.email.split('@')[0] ?? '')
}

describe('segment filters against real rows', () => {
  it('equals is exact (case matters), in matches any, not-equals includes contacts without the attribute', async () => {
    expect(await matching({ conditions: [{ op: 'equals', attribute: 'city', value: 'Berlin' }] })).toEqual([
      'ann',
      'bob',
    ])
    expect(
      await matching({ conditions: [{ op: 'in', attribute: 'plan', values: ['pro', 'team'] }] }),
    ).toEqual(['ann', 'cat', 'dan'])
    expect(
      await matching({ conditions: [{ op: 'not-equals', attribute: 'city', value: 'Berlin' }] }),
    ).toEqual(['cat', 'dan', 'eve', 'mal'])
  })

  it('matches numbers and booleans by the text they render as; exists ignores blank values', async () => {
    expect(await matching({ conditions: [{ op: 'equals', attribute: 'seats', value: '3' }] })).toEqual([
      'dan',
    ])
    expect(await matching({ conditions: [{ op: 'equals', attribute: 'vip', value: 'true' }] })).toEqual([
      'cat',
    ])
    expect(await matching({ conditions: [{ op: 'exists', attribute: 'vip' }] })).toEqual(['cat'])
  })

  it('created before / after whole UTC days, AND-ed with the rest', async () => {
    expect(await matching({ conditions: [{ op: 'created-after', date: '2026-01-01' }] })).toEqual([
      'cat',
      'dan',
      'eve',
      'mal',
    ])
    expect(await matching({ conditions: [{ op: 'created-before', date: '2026-01-01' }] })).toEqual(['ann'])
    expect(
      await matching({
        conditions: [
          { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
          { op: 'created-after', date: '2026-01-01' },
          { op: 'not-equals', attribute: 'city', value: 'Paris' },
        ],
      }),
    ).toEqual(['cat'])
  })

  it('treats injection attempts in values and keys as plain text to compare', async () => {
    // The compiler is called directly with a key validation would refuse: it is a parameter either way.
    expect(
      await matching({ conditions: [{ op: 'equals', attribute: 'city', value: "Berlin' or '1'='1" }] }),
    ).toEqual(['mal'])
    expect(
      await matching({ conditions: [{ op: 'equals', attribute: "x') or true --", value: 'boom' }] }),
    ).toEqual(['mal'])
    expect(await matching({ conditions: [{ op: 'exists', attribute: "city' or true --" }] })).toEqual([])
    expect(
      await matching({
        conditions: [{ op: 'in', attribute: 'plan', values: ["pro'); delete from contacts; --"] }],
      }),
    ).toEqual([])
    const [left] = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from contacts`)
    expect(left?.n).toBe(7)
  })

  it('never matches another tenant’s contacts', async () => {
    expect(
      await matching({ conditions: [{ op: 'equals', attribute: 'city', value: 'Berlin' }] }, globex),
    ).toEqual(['zed'])
  })

  it('answers equality from the GIN index on attributes', async () => {
    const plan = await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`)
      const where = segmentFilterSql({
        conditions: [{ op: 'in', attribute: 'plan', values: ['pro', 'team'] }],
      })
      return tx.execute<{ 'QUERY PLAN': string }>(sql`explain select id from contacts where ${where}`)
    })
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('contacts_attributes_gin_idx')
  })
})

describe('segments', () => {
  const store = () => createSegmentStore(database.db)

  it('saves, lists, renames and counts a segment as an audience, leaving out unsubscribed and suppressed', async () => {
    const segment = await createSegment(
      {
        tenantId: acme,
        name: 'Berliners',
        filter: { conditions: [{ op: 'equals', attribute: 'city', value: 'Berlin' }] },
      },
      { store: store() },
    )
    await database.db
      .insert(suppressions)
      .values({ tenantId: acme, email: 'bob@example.com', reason: 'manual' })
    expect(await countAudience(database.db, { tenantId: acme, listId: null, segmentId: segment.id })).toEqual(
      {
        recipients: 1,
        unsubscribed: 0,
        suppressed: 1,
      },
    )
    // Another tenant's segment id counts nobody.
    expect(
      await countAudience(database.db, { tenantId: globex, listId: null, segmentId: segment.id }),
    ).toMatchObject({
      recipients: 0,
    })
    await renameSegment({ tenantId: acme, segmentId: segment.id, name: 'Berlin' }, { store: store() })
    expect((await listSegments(database.db, { tenantId: acme })).map((s) => s.name)).toContain('Berlin')
    expect(await listSegments(database.db, { tenantId: globex })).toEqual([])
    await expect(
      renameSegment({ tenantId: globex, segmentId: segment.id, name: 'Stolen' }, { store: store() }),
    ).rejects.toMatchObject({ code: 'not_found' })
  })

  it('refuses a bad filter naming the field, and a name already used', async () => {
    await expect(
      createSegment(
        {
          tenantId: acme,
          name: 'Bad',
          filter: { conditions: [{ op: 'like', attribute: 'city', value: 'B%' }] },
        },
        { store: store() },
      ),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [{ path: 'filter.conditions[0].op' }] })
    const filter = { conditions: [{ op: 'exists', attribute: 'vip' }] }
    await createSegment({ tenantId: acme, name: 'VIPs', filter }, { store: store() })
    await expect(
      createSegment({ tenantId: acme, name: 'VIPs', filter }, { store: store() }),
    ).rejects.toMatchObject({
      code: 'conflict',
      details: [{ path: 'name' }],
    })
  })

  it('refuses to delete a segment a scheduled or sending campaign uses, naming them; allows it once they are done', async () => {
    const segment = await createSegment(
      {
        tenantId: acme,
        name: 'Teams',
        filter: { conditions: [{ op: 'equals', attribute: 'plan', value: 'team' }] },
      },
      { store: store() },
    )
    const [scheduled, draft] = await database.db
      .insert(campaigns)
      .values([
        {
          tenantId: acme,
          name: 'Team launch',
          subject: 'Hi',
          html: '<p>Hi</p>',
          segmentId: segment.id,
          status: 'scheduled',
          sendAt: new Date(Date.now() + 3_600_000),
        },
        { tenantId: acme, name: 'Team draft', subject: 'Hi', html: '<p>Hi</p>', segmentId: segment.id },
      ])
      .returning({ id: campaigns.id })
    const refused = deleteSegment({ tenantId: acme, segmentId: segment.id }, { store: store() })
    await expect(refused).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('“Team launch” (scheduled)'),
      details: [{ path: `campaigns.${scheduled?.id}`, message: 'Team launch' }],
    })
    expect(await getSegment(database.db, { tenantId: acme, segmentId: segment.id })).not.toBeNull()
    await expect(
      deleteSegment({ tenantId: globex, segmentId: segment.id }, { store: store() }),
    ).rejects.toMatchObject({
      code: 'not_found',
    })

    await database.db
      .update(campaigns)
      .set({ status: 'sent' })
      .where(eq(campaigns.id, scheduled?.id ?? ''))
    await deleteSegment({ tenantId: acme, segmentId: segment.id }, { store: store() })
    expect(await getSegment(database.db, { tenantId: acme, segmentId: segment.id })).toBeNull()
    // The draft keeps its (deleted) segment's name; a new segment may take the name again.
    expect(draft?.id).toBeDefined()
    await createSegment(
      { tenantId: acme, name: 'Teams', filter: { conditions: [{ op: 'exists', attribute: 'plan' }] } },
      { store: store() },
    )
  })
})
