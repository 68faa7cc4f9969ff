import { randomUUID } from 'node:crypto'
import { FEEDBACK_WINDOW_HOURS } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { tenantFeedbackSince, tenantFeedbackStatement } from './admin-feedback'
import { type MessageEventInput, recordMessageEvents } from './message-events'
import { createTenant } from './tenants'

const env = setupTestEnvironment('db-admin-feedback')
let database: DatabaseHandle
let acme: string
let globex: string
let initech: string

const now = new Date('2026-12-03T12:00:00Z')
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000)
const since = hoursAgo(FEEDBACK_WINDOW_HOURS)

/** `count` events of one kind for one tenant, each for a message of its own, at `at`. */
function events(
  tenantId: string,
  count: number,
  type: MessageEventInput['type'],
  at: Date,
  detail?: Record<string, unknown>,
): MessageEventInput[] {
  return Array.from({ length: count }, () => ({
    tenantId,
    messageId: randomUUID(),
    type,
    at,
    ...(detail ? { detail } : {}),
  }))
}

const hard = { kind: 'hard', status: '5.1.1', action: 'failed', diagnostic: '550 5.1.1 no such user' }
const soft = { kind: 'soft', status: '4.2.2', action: 'delayed' }

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3 })
  const { db } = database
  acme = (await createTenant(db, { name: 'Acme' })).id
  globex = (await createTenant(db, { name: 'Globex' })).id
  initech = (await createTenant(db, { name: 'Initech' })).id
  await recordMessageEvents(db, [
    // Acme: 200 sent in the window, 12 hard bounces, 3 soft ones (not counted), 1 complaint.
    ...events(acme, 200, 'sent', hoursAgo(2)),
    ...events(acme, 12, 'bounced', hoursAgo(1), hard),
    ...events(acme, 3, 'bounced', hoursAgo(1), soft),
    ...events(acme, 1, 'complained', hoursAgo(1), { feedbackType: 'abuse' }),
    // Other steps of the same messages are not sends.
    ...events(acme, 50, 'accepted', hoursAgo(2)),
    ...events(acme, 50, 'queued', hoursAgo(2)),
    ...events(acme, 5, 'failed', hoursAgo(2), { code: 'rejected', attempts: 1 }),
    // Before the window: not counted.
    ...events(acme, 500, 'sent', hoursAgo(FEEDBACK_WINDOW_HOURS + 1)),
    ...events(acme, 40, 'bounced', hoursAgo(FEEDBACK_WINDOW_HOURS + 0.5), hard),
    // Globex: a bounce exactly at the window's start counts; it sent nothing in the window.
    ...events(globex, 1, 'bounced', since, hard),
    // Initech: only before the window.
    ...events(initech, 10, 'sent', hoursAgo(30)),
  ])
})

afterAll(async () => {
  await database?.close()
})

describe('tenantFeedbackSince', () => {
  it('counts sends, hard bounces and complaints per tenant over the window, from message_events', async () => {
    expect(await tenantFeedbackSince(database.db, { since })).toEqual([
      { tenantId: acme, name: 'Acme', sent: 200, hardBounces: 12, complaints: 1 },
      { tenantId: globex, name: 'Globex', sent: 0, hardBounces: 1, complaints: 0 },
    ])
  })

  it('can read only the window through the BRIN on `at`', async () => {
    // The test table is small enough that a sequential scan wins on cost; forbidding it shows the
    // window's condition is one the BRIN serves (a function of `at` would leave only the scan).
    const plan = await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`)
      return tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${tenantFeedbackStatement(since)}`)
    })
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('message_events_at_brin')
  })
})
