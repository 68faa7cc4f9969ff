import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { createTenant } from './tenants'
import { largestTenantBacklogs, tenantBacklogsStatement } from './worker-metrics'

const env = setupTestEnvironment('db-worker-metrics')

const BIG_BACKLOG = 5_000
const CAP = 100

let database: DatabaseHandle
let big: string
let small: string
let queuer: string

/** `count` rows of one tenant by generate_series, as the benchmarks seed a backlog. */
async function insertRows(tenantId: string, count: number, status: string, lane: string) {
  await database.db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, queued_at, sent_at, created_at)
    select ${tenantId}::uuid, ${lane}, ${status}, 'r' || i || '@example.test',
      case when ${status} = 'queued' then now() - i * interval '1 millisecond' end,
      case when ${status} = 'sent' then now() end,
      now() - i * interval '1 millisecond'
    from generate_series(1, ${count}) i`)
}

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'worker-metrics-test' })
  big = (await createTenant(database.db, { name: 'Big' })).id
  small = (await createTenant(database.db, { name: 'Small' })).id
  queuer = (await createTenant(database.db, { name: 'Queuer' })).id
  await insertRows(big, BIG_BACKLOG, 'pending', 'bulk')
  await insertRows(big, 2_000, 'sent', 'bulk')
  await insertRows(small, 3, 'pending', 'bulk')
  await insertRows(queuer, 7, 'queued', 'critical')
  await database.db.execute(sql`analyze messages`)
})

afterAll(async () => {
  await database?.close()
})

interface PlanNode {
  'Relation Name'?: string
  'Actual Rows'?: number
  'Actual Loops'?: number
  'Rows Removed by Filter'?: number
  'Rows Removed by Index Recheck'?: number
  Plans?: PlanNode[]
}

/** Rows every scan of `messages` in the plan read: those it returned and those its filters dropped. */
function messageRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'messages'
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0
  return own + (node.Plans ?? []).reduce((sum, child) => sum + messageRowsRead(child), 0)
}

describe('largestTenantBacklogs', () => {
  it('counts each tenant up to the cap: a backlog beyond it reads as the cap', async () => {
    expect(await largestTenantBacklogs(database.db, { limit: 10, countCap: CAP })).toEqual([
      { tenantId: big, pending: CAP, queued: 0 },
      { tenantId: queuer, pending: 0, queued: 7 },
      { tenantId: small, pending: 3, queued: 0 },
    ])
    expect(await largestTenantBacklogs(database.db, { limit: 1, countCap: CAP })).toEqual([
      { tenantId: big, pending: CAP, queued: 0 },
    ])
    // Under the cap the counts are exact.
    expect(await largestTenantBacklogs(database.db, { limit: 10, countCap: 10_000 })).toContainEqual({
      tenantId: big,
      pending: BIG_BACKLOG,
      queued: 0,
    })
  })

  it('reads rows in proportion to the tenants waiting and the cap, not to the backlog', async () => {
    const [row] = await database.db.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      sql`explain (analyze, costs off, timing off, summary off, format json) ${tenantBacklogsStatement({
        limit: 10,
        countCap: CAP,
      })}`,
    )
    const plan = row?.['QUERY PLAN'][0]?.Plan
    if (!plan) throw new Error('no plan')
    const read = messageRowsRead(plan)
    // Two tenants waiting (a probe each, and one that finds none), each counted up to the cap, and
    // the queued rows up to the cap: nowhere near the 5,000 pending rows of the big tenant, nor its
    // 2,000 sent ones.
    expect(read).toBeGreaterThan(0)
    expect(read).toBeLessThanOrEqual(3 + 2 * CAP + 7 + CAP)
  })
})
