import { createDatabase, type DatabaseHandle, tenantDeferralCounts } from '@fairlane/db'
import { addDeferralCounts } from '@fairlane/db/queries/deferral-counts'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { createDeferralRecorder } from './deferral-recorder'

const env = setupTestEnvironment('deferral-recorder')
let database: DatabaseHandle

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 2 })
})
afterAll(async () => {
  await database?.close()
})

it("two workers' flushes of the same minute add up in PostgreSQL; a deleted tenant is skipped", async () => {
  const { db } = database
  const tenantId = await createTenant(db)
  const minute = Date.parse('2026-12-02T10:00:30Z')
  const recorder = () =>
    createDeferralRecorder({
      write: (counts) => addDeferralCounts(db, counts),
      logger: testLogger(),
      everyMs: 3_600_000,
      now: () => minute,
    })
  const first = recorder()
  const second = recorder()
  first.record(tenantId, 'bulk')
  first.record(tenantId, 'bulk')
  second.record(tenantId, 'bulk')
  second.record('00000000-0000-4000-8000-000000000000', 'bulk')
  await first.close()
  await second.close()
  const rows = await db.select().from(tenantDeferralCounts)
  expect(rows.map((row) => [row.tenantId, row.lane, row.minute.toISOString(), row.count])).toEqual([
    [tenantId, 'bulk', '2026-12-02T10:00:00.000Z', 3],
  ])
})
