import type { ReleasedMessage, ReleaseQuota } from '@fairlane/core/pacing'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { bulkReleaseClaim, claimBulkRelease } from './pacer'

/**
 * The pacer's claim reads what it claims, not the tenants waiting beside it nor the rows a tenant
 * released before: 2,000 small tenants with backlog, and Big with 3,000 rows claimed while an older
 * snapshot stays open (as under load: a dispatch, a report), so their backlog-index entries cannot
 * be pruned. Counted in buffers from EXPLAIN (ANALYZE, BUFFERS), not in milliseconds.
 */
const env = setupTestEnvironment('db-pacer-claim')

let database: DatabaseHandle
let snapshotHolder: DatabaseHandle
let releaseSnapshot: () => void = () => {}
let snapshotHeld: Promise<unknown> = Promise.resolve()
let bigId: string
let smallIds: string[]

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  'Shared Hit Blocks': number
  'Shared Read Blocks': number
  Plans?: PlanNode[]
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)]
}

/** The claim's plan as run (its changes rolled back). */
async function explainClaim(quotas: ReleaseQuota[]): Promise<PlanNode> {
  const statement = bulkReleaseClaim(quotas)
  if (!statement) throw new Error('no statement for these quotas')
  let plan: PlanNode | undefined
  await database.db
    .transaction(async (tx) => {
      const [row] = await tx.execute<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        sql`explain (analyze, buffers, format json) ${statement}`,
      )
      plan = row?.['QUERY PLAN'][0]?.Plan
      tx.rollback()
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.message.includes('Rollback'))) throw error
    })
  if (!plan) throw new Error('EXPLAIN returned no plan')
  return plan
}

/** The last claimed row in the claim's order (RETURNING gives them in heap order). */
function lastClaimed(rows: ReleasedMessage[]): { createdAt: string; messageId: string } {
  const sorted = rows
    .map((row) => {
      if (row.createdAt === undefined) throw new Error('the claim did not say where it stopped')
      return { createdAt: row.createdAt, messageId: row.messageId }
    })
    .sort((a, b) =>
      a.createdAt === b.createdAt
        ? a.messageId.localeCompare(b.messageId)
        : a.createdAt.localeCompare(b.createdAt),
    )
  const last = sorted.at(-1)
  if (!last) throw new Error('nothing was claimed')
  return last
}

/** Buffers the claim spent walking the backlog index (its probes, with their heap visits). */
function backlogProbeBuffers(plan: PlanNode): { buffers: number; loops: number } {
  const probes = nodes(plan).filter((node) => node['Index Name'] === 'messages_bulk_backlog_idx')
  return {
    buffers: probes.reduce((sum, node) => sum + node['Shared Hit Blocks'] + node['Shared Read Blocks'], 0),
    loops: probes.reduce((sum, node) => sum + node['Actual Loops'], 0),
  }
}

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2, applicationName: 'db-pacer-claim-test' })
  snapshotHolder = createDatabase(env.databaseUrl, { max: 1, applicationName: 'db-pacer-claim-snapshot' })
  const { db } = database
  const small = await db.execute<{ id: string }>(sql`
    insert into tenants (name) select 'claim-small-' || g from generate_series(1, 2000) g returning id`)
  smallIds = small.map((row) => row.id)
  const [big] = await db.execute<{ id: string }>(
    sql`insert into tenants (name) values ('claim-big') returning id`,
  )
  if (!big) throw new Error('no Big')
  bigId = big.id
  await db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, created_at)
    select t.id, 'bulk', 'pending', 'r' || g || '@small.test', now() - interval '1 minute' + g * interval '1 second'
    from tenants t cross join generate_series(1, 2) g where t.name like 'claim-small-%'`)
  await db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, created_at)
    select ${bigId}::uuid, 'bulk', 'pending', 'b' || g || '@big.test', now() - interval '1 hour' + g * interval '1 millisecond'
    -- Written out of order, as Big's rows lie among other tenants' in the table: the backlog index's
    -- neighbours are on different heap pages.
    from generate_series(1, 4000) g order by random()`)
  await db.execute(sql`analyze messages`)
  // An older snapshot, open until the end: the rows claimed below stay visible to it, so their index
  // entries can be neither removed nor marked dead.
  let held: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    held = resolve
  })
  snapshotHeld = snapshotHolder.db.transaction(
    async (tx) => {
      await tx.execute(sql`select count(*) from tenants`)
      held()
      await new Promise<void>((resolve) => {
        releaseSnapshot = resolve
      })
    },
    { isolationLevel: 'repeatable read' },
  )
  await opened
}, 120_000)

afterAll(async () => {
  releaseSnapshot()
  await snapshotHeld
  await snapshotHolder?.close()
  await database?.close()
})

describe("the pacer's claim", () => {
  it("starts a tenant's probe after its last claimed row: the rows released before cost nothing", async () => {
    const first = await claimBulkRelease(database.db, [{ tenantId: bigId, count: 3000 }])
    expect(first).toHaveLength(3000)
    const after = lastClaimed(first)
    const smalls = smallIds.slice(0, 12).map((tenantId) => ({ tenantId, count: 1 }))

    // Without the cursor Big's probe walks the 3,000 entries of rows it already released.
    const fromStart = backlogProbeBuffers(await explainClaim([{ tenantId: bigId, count: 20 }, ...smalls]))
    expect(fromStart.buffers).toBeGreaterThan(1000)
    console.info(`backlog probes from the start: ${JSON.stringify(fromStart)}`)

    const plan = await explainClaim([{ tenantId: bigId, count: 20, after }, ...smalls])
    expect(nodes(plan).filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([])
    const probes = backlogProbeBuffers(plan)
    console.info(`backlog probes after the cursor: ${JSON.stringify(probes)}`)
    expect(probes.loops).toBe(13)
    // A descent of the index (≤ 4 pages) and a heap page per row it claims, per probe.
    expect(probes.buffers).toBeLessThanOrEqual(probes.loops * 4 + 32)
    expect(plan['Actual Rows']).toBe(32)
  })

  it('claims the rows right after the cursor, in order, and from the start without one', async () => {
    const expected = await database.db.execute<{ id: string }>(sql`
      select id from messages m where tenant_id = ${bigId}::uuid and status = 'pending' and lane = 'bulk'
        and not exists (select 1 from message_claims c where c.message_id = m.id)
      order by created_at, id limit 6`)
    const [firstTwo, nextFour] = [expected.slice(0, 2), expected.slice(2)]
    const claimed = await claimBulkRelease(database.db, [{ tenantId: bigId, count: 2 }])
    const ids = (rows: Array<{ messageId: string } | { id: string }>) =>
      rows.map((row) => ('id' in row ? row.id : row.messageId)).sort()
    expect(ids(claimed)).toEqual(ids(firstTwo))
    const next = await claimBulkRelease(database.db, [
      { tenantId: bigId, count: 4, after: lastClaimed(claimed) },
    ])
    expect(ids(next)).toEqual(ids(nextFour))
  })

  it('commits without waiting for the WAL flush, in its own transaction only', async () => {
    const setting = sql`select current_setting('synchronous_commit') as value`
    const inClaim = await database.db.transaction(async (tx) => {
      await claimBulkRelease(tx, [{ tenantId: bigId, count: 1 }])
      const [row] = await tx.execute<{ value: string }>(setting)
      return row?.value
    })
    expect(inClaim).toBe('off')
    // On its own it is its own transaction: the connection's setting is back afterwards.
    await claimBulkRelease(database.db, [{ tenantId: bigId, count: 1 }])
    const after = await database.db.execute<{ value: string }>(setting)
    expect(after.map((row) => row.value)).toEqual(['on'])
  })

  it('refuses a cursor that is not a timestamp and a uuid', async () => {
    expect(() =>
      bulkReleaseClaim([
        { tenantId: bigId, count: 1, after: { createdAt: '2026-01-01,x', messageId: bigId } },
      ]),
    ).toThrow(RangeError)
  })
})
