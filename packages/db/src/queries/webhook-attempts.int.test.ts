import type { AttemptDecision, AttemptResult } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema'
import { createTenant } from './tenants'
import { recordWebhookAttempt } from './webhook-attempts'
import {
  claimWebhookDeliveries,
  findReadyWebhookEndpoints,
  findWebhookAttemptTarget,
} from './webhook-deliveries'

/** The webhook lane's leases and an attempt's record: what parks, unparks and what a stale attempt may not write. */
const env = setupTestEnvironment('db-webhook-attempts')
let database: DatabaseHandle

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 3, applicationName: 'db-webhook-attempts-test' })
})
afterAll(async () => {
  await database?.close()
})

async function endpointWithDeliveries(count: number, tenant?: string) {
  const tenantId = tenant ?? (await createTenant(database.db, { name: 'Hooks' })).id
  const [endpoint] = await database.db
    .insert(webhookEndpoints)
    .values({ tenantId, url: 'https://hooks.example.com/in', events: ['email.sent'], secret: 'whsec_x' })
    .returning({ id: webhookEndpoints.id })
  const endpointId = endpoint?.id ?? ''
  await database.db.insert(webhookDeliveries).values(
    Array.from({ length: count }, () => ({
      tenantId,
      endpointId,
      eventType: 'email.sent' as const,
      payload: { type: 'email.sent' },
    })),
  )
  return { tenantId, endpointId }
}

const timeout: AttemptResult = {
  ok: false,
  kind: 'timeout',
  error: 'no complete answer within 10 ms',
  durationMs: 10,
}
const parkFor = (ms: number, level: number): AttemptDecision => ({
  delivery: { status: 'pending', nextAttemptAt: new Date(Date.now() + 60_000) },
  endpoint: { health: 'failing', park: { until: new Date(Date.now() + ms), level } },
})
/** Caps no test below reaches, but the one about caps. */
const WIDE = { endpoint: 100, tenant: 1_000 }
const endpointRow = async (id: string) =>
  (await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]

describe('webhook leases and attempt records', () => {
  it('leases at most what was asked per endpoint, counts the attempt, and reports the leases in flight', async () => {
    const { endpointId } = await endpointWithDeliveries(5)
    const claimed = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 3]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    expect(claimed).toHaveLength(3)
    expect(claimed.every((claim) => claim.attempt === 1)).toBe(true)
    const ready = (await findReadyWebhookEndpoints(database.db)).find((row) => row.endpointId === endpointId)
    expect(ready).toMatchObject({ inFlight: 3, probing: false })
    const again = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 5]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    expect(again).toHaveLength(2)
  })

  it("counts the tenant's leases in flight over all its endpoints, those with nothing due too", async () => {
    const busy = await endpointWithDeliveries(2)
    const other = await endpointWithDeliveries(3, busy.tenantId)
    const stranger = await endpointWithDeliveries(1)
    await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([
        [busy.endpointId, 2],
        [other.endpointId, 1],
        [stranger.endpointId, 1],
      ]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    const ready = await findReadyWebhookEndpoints(database.db)
    // `busy` has nothing due left (both leased), yet its two count toward its tenant.
    expect(ready.map((row) => row.endpointId)).not.toContain(busy.endpointId)
    expect(ready.find((row) => row.endpointId === other.endpointId)).toMatchObject({
      inFlight: 1,
      tenantInFlight: 3,
    })
    expect(ready.find((row) => row.endpointId === stranger.endpointId)).toBeUndefined()
    // An expired lease (a crashed attempt) no longer holds a slot.
    await database.db.execute(
      sql`update webhook_deliveries set locked_until = now() - interval '1 second' where endpoint_id = ${busy.endpointId}`,
    )
    const after = await findReadyWebhookEndpoints(database.db)
    expect(after.find((row) => row.endpointId === other.endpointId)).toMatchObject({ tenantInFlight: 1 })
  })

  it('keeps the caps itself: claims at once never pass a tenant or endpoint cap, a parked endpoint gets none', async () => {
    const first = await endpointWithDeliveries(10)
    const second = await endpointWithDeliveries(10, first.tenantId)
    const parked = await endpointWithDeliveries(3, first.tenantId)
    await database.db.execute(
      sql`update webhook_endpoints set parked_until = now() + interval '1 minute', park_level = 1 where id = ${parked.endpointId}`,
    )
    const caps = { endpoint: 4, tenant: 6 }
    const wanted = new Map([
      [first.endpointId, 4],
      [second.endpointId, 4],
      [parked.endpointId, 1],
    ])
    // Three relays woken by one NOTIFY, each having read "nothing in flight" and planned 9.
    const claims = await Promise.all(
      [1, 2, 3].map(() =>
        claimWebhookDeliveries(database.db, { perEndpoint: wanted, leaseMs: 60_000, caps }),
      ),
    )
    const all = claims.flat()
    expect(all).toHaveLength(6)
    const perEndpoint = (id: string) => all.filter((claim) => claim.endpointId === id).length
    expect([
      perEndpoint(first.endpointId),
      perEndpoint(second.endpointId),
      perEndpoint(parked.endpointId),
    ]).toEqual([3, 3, 0])
    // A probing endpoint (its park over) takes one at a time.
    await database.db.execute(
      sql`update webhook_endpoints set parked_until = now() - interval '1 second' where id = ${parked.endpointId}`,
    )
    const probe = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[parked.endpointId, 3]]),
      leaseMs: 60_000,
      caps: { endpoint: 4, tenant: 100 },
    })
    expect(probe).toHaveLength(1)
  })

  it('a slow 2xx delivers and leaves its endpoint one attempt at a time until a quick one', async () => {
    const { tenantId, endpointId } = await endpointWithDeliveries(3)
    const [slow, quick] = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 2]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    if (!slow || !quick) throw new Error('not claimed')
    const answered = (durationMs: number, isSlow: boolean) => ({
      result: { ok: true, statusCode: 200, excerpt: '', durationMs } satisfies AttemptResult,
      decision: {
        delivery: { status: 'delivered' },
        endpoint: { health: 'answering', unpark: false, slow: isSlow },
      } satisfies AttemptDecision,
    })
    expect(await recordWebhookAttempt(database.db, { ...slow, tenantId, ...answered(9_500, true) })).toBe(
      true,
    )
    const slowed = await endpointRow(endpointId)
    expect(slowed).toMatchObject({ parkLevel: 0, failingSince: null })
    expect(slowed?.parkedUntil?.getTime()).toBeLessThanOrEqual(Date.now())
    const ready = (await findReadyWebhookEndpoints(database.db)).find((row) => row.endpointId === endpointId)
    expect(ready).toMatchObject({ probing: true, inFlight: 1 })

    expect(await recordWebhookAttempt(database.db, { ...quick, tenantId, ...answered(40, false) })).toBe(true)
    expect(await endpointRow(endpointId)).toMatchObject({ parkedUntil: null, parkLevel: 0 })
  })

  it('parks once for a burst of timeouts, leaves a parked endpoint alone, and probes after the park', async () => {
    const { tenantId, endpointId } = await endpointWithDeliveries(4)
    const claimed = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 2]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    const [first, second] = claimed
    if (!first || !second) throw new Error('not claimed')
    const record = (claim: typeof first, decision: AttemptDecision) =>
      recordWebhookAttempt(database.db, { ...claim, tenantId, result: timeout, decision })
    expect(await record(first, parkFor(60_000, 1))).toBe(true)
    // The second attempt was in flight when the park began: it neither lengthens nor deepens it.
    expect(await record(second, parkFor(600_000, 2))).toBe(true)
    const parked = await endpointRow(endpointId)
    expect(parked?.parkLevel).toBe(1)
    expect(parked?.failingSince).toBeInstanceOf(Date)
    expect((await findReadyWebhookEndpoints(database.db)).map((row) => row.endpointId)).not.toContain(
      endpointId,
    )

    await database.db.execute(
      sql`update webhook_endpoints set parked_until = now() - interval '1 second' where id = ${endpointId}`,
    )
    const ready = (await findReadyWebhookEndpoints(database.db)).find((row) => row.endpointId === endpointId)
    expect(ready).toMatchObject({ probing: true, inFlight: 0 })
  })

  it('a success after a park ends it and makes every waiting delivery due now', async () => {
    const { tenantId, endpointId } = await endpointWithDeliveries(3)
    await database.db.execute(sql`
      update webhook_endpoints set parked_until = now() - interval '1 second', park_level = 2, failing_since = now()
      where id = ${endpointId}`)
    await database.db.execute(sql`
      update webhook_deliveries set next_attempt_at = now() + interval '1 hour' where endpoint_id = ${endpointId}`)
    await database.db.execute(sql`
      update webhook_deliveries set next_attempt_at = now()
      where id = (select id from webhook_deliveries where endpoint_id = ${endpointId} limit 1)`)
    const [probe] = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 1]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    if (!probe) throw new Error('no probe')
    const ok: AttemptResult = { ok: true, statusCode: 204, excerpt: '', durationMs: 4 }
    expect(
      await recordWebhookAttempt(database.db, {
        ...probe,
        tenantId,
        result: ok,
        decision: {
          delivery: { status: 'delivered' },
          endpoint: { health: 'answering', unpark: true, slow: false },
        },
      }),
    ).toBe(true)
    expect(await endpointRow(endpointId)).toMatchObject({
      parkedUntil: null,
      parkLevel: 0,
      failingSince: null,
    })
    const [due] = await database.db.execute<{ n: number }>(sql`
      select count(*)::int as n from webhook_deliveries
      where endpoint_id = ${endpointId} and status = 'pending' and next_attempt_at <= now()`)
    expect(due?.n).toBe(2)
  })

  it('an attempt whose lease was taken over writes nothing and is not sent', async () => {
    const { tenantId, endpointId } = await endpointWithDeliveries(1)
    const [stale] = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 1]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    if (!stale) throw new Error('not claimed')
    // The lease ran out and another relay took the delivery again, as attempt 2.
    await database.db.execute(
      sql`update webhook_deliveries set locked_until = now() where id = ${stale.deliveryId}`,
    )
    const [current] = await claimWebhookDeliveries(database.db, {
      perEndpoint: new Map([[endpointId, 1]]),
      leaseMs: 60_000,
      caps: WIDE,
    })
    expect(current?.attempt).toBe(2)
    expect(
      await findWebhookAttemptTarget(database.db, { tenantId, deliveryId: stale.deliveryId, attempt: 1 }),
    ).toBeNull()
    expect(
      await recordWebhookAttempt(database.db, {
        ...stale,
        tenantId,
        result: timeout,
        decision: parkFor(60_000, 1),
      }),
    ).toBe(false)
    expect(
      await database.db
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, stale.deliveryId)),
    ).toHaveLength(0)
    expect((await endpointRow(endpointId))?.parkedUntil).toBeNull()
  })
})
