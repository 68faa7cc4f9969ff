import { ROLLUP_CURSOR_NAME, type RollupDay, rollUpDays } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { asc } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { jobCursors, messages, tenantDailyStats } from '../schema'
import { addDeferralCounts } from './deferral-counts'
import { createRollupStore, readJobCursor, writeJobCursor } from './rollup'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-rollup')
let database: DatabaseHandle
let acme: string
let globex: string

const at = (iso: string) => new Date(`${iso}Z`)
const clock = { now: () => at('2026-10-05T03:00:00') }

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3 })
  const { db } = database
  acme = (await createTenant(db, { name: 'Acme' })).id
  globex = (await createTenant(db, { name: 'Globex' })).id
  const row = (tenantId: string, status: 'sent' | 'failed' | 'suppressed' | 'pending', when: string) => ({
    tenantId,
    lane: 'bulk' as const,
    status,
    toAddress: 'x@example.com',
    createdAt: at('2026-10-01T12:00:00'),
    updatedAt: at(when),
    sentAt: status === 'sent' ? at(when) : null,
    failedAt: status === 'failed' ? at(when) : null,
  })
  await db.insert(messages).values([
    // 1 Oct is before the cursor: never counted.
    row(acme, 'sent', '2026-10-01T10:00:00'),
    // 2 Oct
    row(acme, 'sent', '2026-10-02T00:00:00'),
    row(acme, 'sent', '2026-10-02T23:59:59'),
    row(acme, 'failed', '2026-10-02T08:00:00'),
    // 3 Oct
    row(acme, 'sent', '2026-10-03T09:00:00'),
    row(globex, 'sent', '2026-10-03T09:00:00'),
    row(globex, 'sent', '2026-10-03T10:00:00'),
    row(globex, 'suppressed', '2026-10-03T11:00:00'),
    // 4 Oct
    row(globex, 'failed', '2026-10-04T23:00:00'),
    // 5 Oct has not ended at 03:00.
    row(acme, 'sent', '2026-10-05T01:00:00'),
    row(acme, 'pending', '2026-10-04T12:00:00'),
  ])
  const deferrals = (tenantId: string, lane: string, minute: string, count: number) => ({
    tenantId,
    lane,
    minute: at(minute),
    count,
  })
  // Two workers' flushes of the same minute add up; minutes outside the rolled days never count.
  await addDeferralCounts(db, [
    deferrals(acme, 'bulk', '2026-10-02T10:00:00', 3),
    deferrals(acme, 'bulk', '2026-10-01T23:59:00', 9),
    deferrals(globex, 'critical', '2026-10-04T23:59:00', 1),
    deferrals(globex, 'bulk', '2026-10-05T00:00:00', 7),
  ])
  await addDeferralCounts(db, [deferrals(acme, 'bulk', '2026-10-02T10:00:00', 2)])
})
afterAll(async () => {
  await database?.close()
})
beforeEach(async () => {
  await database.db.delete(tenantDailyStats)
  await database.db.delete(jobCursors)
  await writeJobCursor(database.db, ROLLUP_CURSOR_NAME, at('2026-10-01T00:00:00'))
})

async function stats() {
  const rows = await database.db
    .select({
      tenantId: tenantDailyStats.tenantId,
      day: tenantDailyStats.day,
      sent: tenantDailyStats.sent,
      failed: tenantDailyStats.failed,
      suppressed: tenantDailyStats.suppressed,
      deferred: tenantDailyStats.deferred,
    })
    .from(tenantDailyStats)
    .orderBy(asc(tenantDailyStats.day), asc(tenantDailyStats.tenantId))
  return rows.map(({ tenantId, ...rest }) => ({ tenant: tenantId === acme ? 'acme' : 'globex', ...rest }))
}

const expected = () => [
  { tenant: 'acme', day: '2026-10-02', sent: 2, failed: 1, suppressed: 0, deferred: 5 },
  { tenant: 'acme', day: '2026-10-03', sent: 1, failed: 0, suppressed: 0, deferred: 0 },
  { tenant: 'globex', day: '2026-10-03', sent: 2, failed: 0, suppressed: 1, deferred: 0 },
  { tenant: 'globex', day: '2026-10-04', sent: 0, failed: 1, suppressed: 0, deferred: 1 },
]

describe('daily rollup against PostgreSQL', () => {
  it('rolls 2, 3 and 4 Oct once each, then does nothing on a second run', async () => {
    const writes: string[] = []
    const store = createRollupStore(database.db, { afterDayWritten: (day) => void writes.push(day.day) })
    const first = await rollUpDays({ store, timeZone: 'UTC', clock })
    expect(first.days).toEqual([
      { day: '2026-10-02', tenants: 1 },
      { day: '2026-10-03', tenants: 2 },
      { day: '2026-10-04', tenants: 1 },
    ])
    expect(normalize(await stats())).toEqual(normalize(expected()))
    expect(await readJobCursor(database.db, ROLLUP_CURSOR_NAME)).toEqual(at('2026-10-04T00:00:00'))

    const second = await rollUpDays({ store, timeZone: 'UTC', clock })
    expect(second.days).toEqual([])
    expect(writes).toEqual(['2026-10-02', '2026-10-03', '2026-10-04'])
  })

  it('dies during 3 Oct, re-runs: 3 Oct is processed twice, totals are right, the cursor ends on 4 Oct', async () => {
    const attempts: string[] = []
    let crashed = false
    const store = createRollupStore(database.db, {
      afterDayWritten: (day: RollupDay) => {
        attempts.push(day.day)
        if (day.day === '2026-10-03' && !crashed) {
          crashed = true
          throw new Error('worker died while writing 3 Oct')
        }
      },
    })
    await expect(rollUpDays({ store, timeZone: 'UTC', clock })).rejects.toThrow(/3 Oct/)
    // 2 Oct committed with its cursor; 3 Oct rolled back whole.
    expect(await readJobCursor(database.db, ROLLUP_CURSOR_NAME)).toEqual(at('2026-10-02T00:00:00'))
    expect((await stats()).map((r) => r.day)).toEqual(['2026-10-02'])

    const rerun = await rollUpDays({ store, timeZone: 'UTC', clock })
    expect(rerun.days.map((d) => d.day)).toEqual(['2026-10-03', '2026-10-04'])
    expect(attempts).toEqual(['2026-10-02', '2026-10-03', '2026-10-03', '2026-10-04'])
    expect(attempts.filter((d) => d === '2026-10-03')).toHaveLength(2)
    expect(normalize(await stats())).toEqual(normalize(expected()))
    expect(await readJobCursor(database.db, ROLLUP_CURSOR_NAME)).toEqual(at('2026-10-04T00:00:00'))
  })

  it('overwrites a day: a rerun of an already rolled day replaces its rows instead of adding to them', async () => {
    const store = createRollupStore(database.db)
    await rollUpDays({ store, timeZone: 'UTC', clock })
    await writeJobCursor(database.db, ROLLUP_CURSOR_NAME, at('2026-10-01T00:00:00'))
    await rollUpDays({ store, timeZone: 'UTC', clock })
    expect(normalize(await stats())).toEqual(normalize(expected()))
  })
})

/** Order-independent comparison of the rows. */
function normalize(rows: { tenant: string; day: string }[]) {
  return [...rows].sort((a, b) => `${a.day}${a.tenant}`.localeCompare(`${b.day}${b.tenant}`))
}
