import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { leaveActiveIfEmpty } from './bulk-backlog-tenants'
import { claimMessage, markMessageSent, unclaimMessage } from './delivery'
import { visibleStatus } from './message-claims'
import { claimBulkRelease, returnBulkRelease } from './pacer'

/**
 * The pacer's release is a row of `message_claims` without a lock token: the wide `messages` row is
 * not written (its xmin stays), readers see `queued`, and the next release, the tenant's "emptied"
 * check, a claim, a deferral and a give-back each treat it as handed to a job.
 */
const env = setupTestEnvironment('db-bulk-release')

let database: DatabaseHandle

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2, applicationName: 'db-bulk-release-test' })
})

afterAll(async () => {
  await database?.close()
})

async function tenantWithBacklog(name: string, count: number): Promise<string> {
  const [tenant] = await database.db.execute<{ id: string }>(
    sql`insert into tenants (name) values (${name}) returning id`,
  )
  if (!tenant) throw new Error('no tenant')
  await database.db.execute(sql`
    insert into messages (tenant_id, lane, status, to_address, created_at)
    select ${tenant.id}::uuid, 'bulk', 'pending', 'r' || g || '@release.test', now() - interval '1 hour' + g * interval '1 second'
    from generate_series(1, ${count}) g`)
  return tenant.id
}

async function rowsOf(tenantId: string) {
  return database.db.execute<{
    id: string
    xmin: string
    status: string
    seen: string
    token: string | null
    released: boolean
    queued_events: number
  }>(sql`
    select messages.id, messages.xmin::text as xmin, messages.status, ${visibleStatus()} as seen,
      c.lock_token as token, c.message_id is not null as released,
      (select count(*)::int from message_events e where e.message_id = messages.id and e.type = 'queued') as queued_events
    from messages left join message_claims c on c.message_id = messages.id
    where messages.tenant_id = ${tenantId}::uuid
    order by messages.created_at, messages.id`)
}

async function backlogSeq(tenantId: string): Promise<number> {
  const [row] = await database.db.execute<{ seq: string }>(
    sql`select seq::text from bulk_backlog_tenants where tenant_id = ${tenantId}::uuid`,
  )
  if (!row) throw new Error('the tenant is not in the active set')
  return Number(row.seq)
}

describe("the pacer's release", () => {
  it('writes no messages row: released rows read queued, stay pending in the table, and are passed over next time', async () => {
    const tenantId = await tenantWithBacklog('release-narrow', 10)
    const before = await rowsOf(tenantId)
    const first = await claimBulkRelease(database.db, [{ tenantId, count: 4 }])
    expect(first.map((row) => row.messageId)).toEqual(before.slice(0, 4).map((row) => row.id))

    const after = await rowsOf(tenantId)
    // Not one messages row rewritten (an UPDATE would give each a new xmin).
    expect(after.map((row) => row.xmin)).toEqual(before.map((row) => row.xmin))
    expect(after.map((row) => row.status)).toEqual(Array(10).fill('pending'))
    expect(after.map((row) => row.seen)).toEqual([...Array(4).fill('queued'), ...Array(6).fill('pending')])
    expect(after.slice(0, 4).every((row) => row.released && row.token === null)).toBe(true)
    expect(after.map((row) => row.queued_events)).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])

    // From the start again (no cursor): only the rows not handed out yet.
    const second = await claimBulkRelease(database.db, [{ tenantId, count: 10 }])
    expect(second.map((row) => row.messageId)).toEqual(before.slice(4).map((row) => row.id))
    // Every row handed to a job: the tenant's backlog is empty and it leaves the active set.
    expect(await leaveActiveIfEmpty(database.db, [{ tenantId, seq: await backlogSeq(tenantId) }])).toEqual([
      tenantId,
    ])
  })

  it('a give-back ends the releases and stamps the tenant, so the rows are released again', async () => {
    const tenantId = await tenantWithBacklog('release-give-back', 3)
    const released = await claimBulkRelease(database.db, [{ tenantId, count: 3 }])
    const seq = await backlogSeq(tenantId)
    expect(await returnBulkRelease(database.db, released)).toBe(3)
    expect(await backlogSeq(tenantId)).toBeGreaterThan(seq)
    const rows = await rowsOf(tenantId)
    expect(rows.map((row) => [row.seen, row.released, row.queued_events])).toEqual(
      Array(3).fill(['pending', false, 0]),
    )
    const again = await claimBulkRelease(database.db, [{ tenantId, count: 3 }])
    expect(again.map((row) => row.messageId)).toEqual(released.map((row) => row.messageId))
  })

  it('a claim takes the release over; a deferral turns it back into a release; the outcome ends it', async () => {
    const tenantId = await tenantWithBacklog('release-claim', 1)
    const [released] = await claimBulkRelease(database.db, [{ tenantId, count: 1 }])
    if (!released) throw new Error('nothing released')
    const job = { messageId: released.messageId, tenantId }
    const claim = await claimMessage(database.db, { ...job, lockMs: 60_000 })
    expect(claim?.attempts).toBe(1)
    if (!claim) throw new Error('not claimed')
    expect((await rowsOf(tenantId))[0]).toMatchObject({ seen: 'sending', token: claim.lockToken })

    // Deferred: the job keeps the message, so the pacer must not release it a second time.
    const untilMs = Date.now() + 5_000
    expect(await unclaimMessage(database.db, { ...job, lockToken: claim.lockToken, untilMs })).toBe(true)
    expect((await rowsOf(tenantId))[0]).toMatchObject({ status: 'pending', seen: 'queued', token: null })
    expect(await claimBulkRelease(database.db, [{ tenantId, count: 1 }])).toEqual([])

    // The deferred job comes back: its claim takes the release over, uncounted attempt gone.
    const retried = await claimMessage(database.db, { ...job, lockMs: 60_000 })
    expect(retried?.attempts).toBe(1)
    if (!retried) throw new Error('not claimed again')
    expect(await markMessageSent(database.db, { ...job, lockToken: retried.lockToken })).toBe(true)
    expect((await rowsOf(tenantId))[0]).toMatchObject({ status: 'sent', seen: 'sent', released: false })
  })
})
