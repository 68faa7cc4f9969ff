import { MESSAGE_PUBLISH_TOPIC } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { outbox } from '../schema'
import { nextParkedDueInMs } from './outbox'

const env = setupTestEnvironment('db-outbox')

let database: DatabaseHandle

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2, applicationName: 'db-outbox-test' })
})
afterAll(async () => {
  await database?.close()
})
beforeEach(async () => {
  await database.db.delete(outbox)
})

async function park(inMs: number, published = false): Promise<void> {
  await database.db.insert(outbox).values({
    topic: MESSAGE_PUBLISH_TOPIC,
    payload: {},
    parkKey: 'critical:tenant',
    parkedUntil: sql`now() + ${inMs}::int * interval '1 millisecond'`,
    ...(published ? { publishedAt: sql`now()` } : {}),
  })
}

describe('nextParkedDueInMs: when the relay should look at parked rows next', () => {
  it('has no answer without a parked row still to come (the relay then waits for its poll)', async () => {
    expect(await nextParkedDueInMs(database.db)).toBeUndefined()
    await park(-1_000)
    await park(5_000, true)
    expect(await nextParkedDueInMs(database.db)).toBeUndefined()
  })

  it('answers the time until the earliest unpublished parked row comes due', async () => {
    await park(60_000)
    await park(5_000)
    const inMs = await nextParkedDueInMs(database.db)
    expect(inMs).toBeGreaterThan(4_000)
    expect(inMs).toBeLessThanOrEqual(5_000)
  })
})
