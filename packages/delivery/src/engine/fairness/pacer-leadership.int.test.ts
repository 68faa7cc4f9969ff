import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { findLease, renewLease } from '@fairlane/db/queries/leases'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createPacerLeadership } from './pacer-leadership'
import { PACER_LEASE } from './pacer-lease'

// Runs in the `integration` project and, through PgBouncer in transaction mode, in `pgbouncer`.
const env = setupTestEnvironment('pacer-leadership')
let database: DatabaseHandle
const TTL_MS = 800

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 6, applicationName: 'pacer-leadership-test' })
})
afterAll(async () => {
  await database?.close()
})
beforeEach(async () => {
  await database.sql`delete from leases`
})

const candidate = (holder: string) =>
  createPacerLeadership({ db: database.db, logger: testLogger(), holder, ttlMs: TTL_MS, marginMs: 100 })

it('lets exactly one of several contending processes lead', async () => {
  const candidates = ['a', 'b', 'c', 'd'].map((name) => candidate(`host:${name}:test`))
  const leads = await Promise.all(candidates.map((c) => c.ensure()))
  expect(leads.filter(Boolean)).toHaveLength(1)
  const leader = candidates[leads.indexOf(true)]
  // Renewing keeps it; the others stay followers while it does.
  for (let round = 0; round < 3; round++) {
    const again = await Promise.all(candidates.map((c) => c.ensure()))
    expect(again.map((lead, i) => lead && candidates[i] === leader)).toContain(true)
    expect(again.filter(Boolean)).toHaveLength(1)
  }
  expect((await findLease(database.db, PACER_LEASE.name))?.holder).toBe(leader?.holder)
})

it('hands over once a leader stops renewing: a higher term, and the stale leader cannot renew', async () => {
  const first = candidate('host:1:first')
  const second = candidate('host:2:second')
  // Before the take: the server's `now() + ttl` is no earlier than this plus the TTL.
  const takenAt = Date.now()
  expect(await first.ensure()).toBe(true)
  const before = await findLease(database.db, PACER_LEASE.name)
  expect(await second.ensure()).toBe(false)

  // `first` goes silent (a stalled or killed process): `second` takes over only after expiry.
  await eventually(() => second.ensure(), { timeoutMs: 10_000, intervalMs: 50, what: 'the takeover' })
  expect(Date.now() - takenAt).toBeGreaterThanOrEqual(TTL_MS - 20)
  const after = await findLease(database.db, PACER_LEASE.name)
  expect(after?.holder).toBe('host:2:second')
  expect(after?.term).toBe((before?.term ?? 0) + 1)

  // The old leader's next tick finds another holder: leadership lost, nothing renewed.
  const stale = { name: PACER_LEASE.name, holder: 'host:1:first', term: before?.term ?? 0, ttlMs: TTL_MS }
  expect(await renewLease(database.db, stale)).toBe(false)
  expect(await first.ensure()).toBe(false)
  expect((await findLease(database.db, PACER_LEASE.name))?.holder).toBe('host:2:second')
})

it('a graceful stop releases at once, so the next process need not wait for expiry', async () => {
  const first = candidate('host:1:first')
  const second = candidate('host:2:second')
  expect(await first.ensure()).toBe(true)
  await first.release()
  const releasedAt = Date.now()
  expect(await second.ensure()).toBe(true)
  expect(Date.now() - releasedAt).toBeLessThan(TTL_MS)
  expect((await findLease(database.db, PACER_LEASE.name))?.term).toBe(2)
})

it('keeps a standby candidate (the bulk process) out while the preferred one leads, and in once it is gone', async () => {
  const STANDBY_MS = 600
  let clock = Date.now()
  const standby = createPacerLeadership({
    db: database.db,
    logger: testLogger(),
    holder: 'host:bulk:standby',
    ttlMs: TTL_MS,
    marginMs: 100,
    standbyMs: STANDBY_MS,
    now: () => clock,
  })
  // Alone and just started (no lease row yet): it waits its standby time for the preferred one.
  expect(await standby.ensure()).toBe(false)
  expect(await findLease(database.db, PACER_LEASE.name)).toBeUndefined()
  const preferred = candidate('host:tx:preferred')
  expect(await preferred.ensure()).toBe(true)
  clock += STANDBY_MS
  // Past its standby time, but the lease is held: still out.
  expect(await standby.ensure()).toBe(false)

  // The preferred one goes silent: an expired lease is not enough, it must have been expired
  // STANDBY_MS (the preferred one, restarting, takes it back in that time).
  const silentAt = Date.now()
  await eventually(() => standby.ensure(), {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: 'the standby takeover',
  })
  expect(Date.now() - silentAt).toBeGreaterThanOrEqual(TTL_MS + STANDBY_MS - 50)
  expect((await findLease(database.db, PACER_LEASE.name))?.holder).toBe('host:bulk:standby')
})
