import { randomUUID } from 'node:crypto'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { type MessageEventInput, recordMessageEvents } from '@fairlane/db/queries/message-events'
import { setupTestEnvironment } from '@fairlane/testing'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant } from '../testing/seed'
import { type DepthSource, registerDepthGauges } from './metrics'
import { createTenantFeedbackSource } from './metrics-sources'

/** `fairlane_tenant_bounce_rate` and its siblings, read from real `message_events` rows. */
const env = setupTestEnvironment('worker-feedback-gauges')
let database: DatabaseHandle
let bouncy: string
let spammy: string
let quiet: string

const now = Date.parse('2026-12-03T12:00:00Z')
const at = new Date(now - 2 * 3_600_000)
const old = new Date(now - 25 * 3_600_000)
const events = (
  tenantId: string,
  count: number,
  type: MessageEventInput['type'],
  when = at,
  detail?: object,
) =>
  Array.from({ length: count }, () => ({
    tenantId,
    messageId: randomUUID(),
    type,
    at: when,
    ...(detail ? { detail: { ...detail } } : {}),
  }))
const hard = { kind: 'hard', status: '5.1.1', action: 'failed' }

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 3 })
  bouncy = await createTenant(database.db, 'Bouncy')
  spammy = await createTenant(database.db, 'Spammy')
  quiet = await createTenant(database.db, 'Quiet')
  await recordMessageEvents(database.db, [
    ...events(bouncy, 200, 'sent'),
    ...events(bouncy, 14, 'bounced', at, hard),
    ...events(bouncy, 3, 'bounced', at, { kind: 'soft', status: '4.2.2', action: 'delayed' }),
    ...events(spammy, 1000, 'sent'),
    ...events(spammy, 3, 'complained', at, { feedbackType: 'abuse' }),
    // Quiet sent only before the window: no series.
    ...events(quiet, 50, 'sent', old),
    ...events(quiet, 50, 'bounced', old, hard),
  ])
})

afterAll(async () => {
  await database?.close()
})

function registryWith(options: { topTenants: number }) {
  const registry = new Registry()
  const unused = () => Promise.reject(new Error('not collected in this test'))
  const source: DepthSource = {
    laneDepth: unused,
    deadLetterSize: unused,
    redisMemory: unused,
    outboxLagMs: unused,
    webhookPending: unused,
    tenantBacklogs: unused,
    tenantFeedback: createTenantFeedbackSource({ db: database.db, now: () => now }),
  }
  registerDepthGauges(registry, source, { ...options, feedbackCacheMs: 0 })
  return registry
}

async function series(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric(name)?.get()
  return Object.fromEntries(metric?.values.map((value) => [String(value.labels.tenant), value.value]) ?? [])
}

describe('tenant feedback gauges', () => {
  it('export each sending tenant’s 24-hour hard-bounce and complaint rates and the sends they are over', async () => {
    const registry = registryWith({ topTenants: 10 })
    expect(await series(registry, 'fairlane_tenant_bounce_rate')).toEqual({ [bouncy]: 0.07, [spammy]: 0 })
    expect(await series(registry, 'fairlane_tenant_complaint_rate')).toEqual({ [bouncy]: 0, [spammy]: 0.003 })
    expect(await series(registry, 'fairlane_tenant_sent_24h')).toEqual({ [bouncy]: 200, [spammy]: 1000 })
    const text = await registry.getSingleMetricAsString('fairlane_tenant_bounce_rate')
    expect(text).toContain(`fairlane_tenant_bounce_rate{tenant="${bouncy}"} 0.07`)
    expect(text).not.toContain(quiet)
  })

  it('keep only the worst tenants against the thresholds when capped', async () => {
    // Spammy: 0.3 % complaints is 3 × its threshold; Bouncy: 7 % bounces is 1.4 × its.
    const registry = registryWith({ topTenants: 1 })
    expect(Object.keys(await series(registry, 'fairlane_tenant_bounce_rate'))).toEqual([spammy])
    expect(Object.keys(await series(registry, 'fairlane_tenant_complaint_rate'))).toEqual([spammy])
  })
})
