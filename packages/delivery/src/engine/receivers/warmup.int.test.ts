import { createDatabase, type DatabaseHandle, egressSendingDays } from '@fairlane/db'
import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import type { RedisClient } from '@fairlane/queue'
import { connectTestRedis, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWarmupCheck } from './warmup'

/** A warming egress address's daily cap per provider, by sending day, on real PostgreSQL and Redis. */
const env = setupTestEnvironment('warmup')
let database: DatabaseHandle
let redis: RedisClient

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 2 })
  redis = connectTestRedis(env)
})
afterAll(async () => {
  await redis?.quit()
  await database?.close()
})

const base = loadReceiverRules()
const rules = {
  ...base,
  warmup: {
    schedule: [
      { day: 1, perDayPerProvider: 3 },
      { day: 2, perDayPerProvider: 5 },
    ],
    warmAfterDay: 3,
    addresses: ['192.0.2.50', '192.0.2.51'],
  },
}
const DAY = Date.UTC(2026, 11, 6, 15)

describe('warm-up of new egress addresses', () => {
  it('caps a warming address’s first sending day per provider until the next UTC day; others are not capped', async () => {
    const check = createWarmupCheck({ rules, db: database.db, redis, prefix: `${env.queuePrefix}:` })
    const google = () => check.admit({ egress: '192.0.2.50', provider: 'google', nowMs: DAY })
    for (let sent = 0; sent < 3; sent++) expect(await google()).toEqual({ ok: true })
    expect(await google()).toEqual({ ok: false, untilMs: Date.UTC(2026, 11, 7), cap: 3, sendingDay: 1 })
    // Another provider has its own cap; an address not warming has none.
    expect(await check.admit({ egress: '192.0.2.50', provider: 'microsoft', nowMs: DAY })).toEqual({
      ok: true,
    })
    for (let sent = 0; sent < 10; sent++) {
      expect(await check.admit({ egress: '192.0.2.99', provider: 'google', nowMs: DAY })).toEqual({
        ok: true,
      })
    }
    const days = await database.db.select().from(egressSendingDays)
    expect(days).toEqual([{ egress: '192.0.2.50', day: '2026-12-06' }])
  })

  it('counts sending days, not calendar days: after an idle week the address is on its second day', async () => {
    await database.db.insert(egressSendingDays).values({ egress: '192.0.2.51', day: '2026-11-20' })
    const check = createWarmupCheck({ rules, db: database.db, redis, prefix: `${env.queuePrefix}:` })
    const yahoo = () => check.admit({ egress: '192.0.2.51', provider: 'yahoo', nowMs: DAY })
    for (let sent = 0; sent < 5; sent++) expect(await yahoo()).toEqual({ ok: true })
    expect(await yahoo()).toMatchObject({ ok: false, cap: 5, sendingDay: 2 })
    // It sent today (recorded), so tomorrow is its third sending day: warm, no cap at all.
    const later = createWarmupCheck({ rules, db: database.db, redis, prefix: `${env.queuePrefix}:` })
    for (let sent = 0; sent < 20; sent++) {
      expect(await later.admit({ egress: '192.0.2.51', provider: 'yahoo', nowMs: DAY + 86_400_000 })).toEqual(
        {
          ok: true,
        },
      )
    }
  })
})
