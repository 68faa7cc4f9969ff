import { writeFileSync } from 'node:fs'
import { rateViolations } from '@fairlane/fairness'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { percentile } from '../../testing/measure'
import { startTestPipeline, type TestPipeline, testLogger } from '../../testing/pipeline'
import { createTenant, seedOtpInOneStatement, seedQueuedMessages } from '../../testing/seed'
import { duplicateMessageIds, startTestSink } from '../../testing/sink'

/**
 * Issue 12, "a login code survives another tenant's flood": tenant A floods the critical lane at 20×
 * its transactional rate from ten clients at once (an OTP-bombing of its own login page) while tenant
 * B sends one login code at a time. B's codes must arrive as on an idle lane; A is held to its plan
 * and loses nothing (all of it delivered later, in order of acceptance within A).
 *
 * On a first-in-first-out lane (before the relay parked tenants), B's codes waited behind hundreds of
 * A's jobs, each picked up, refused a token and deferred: seconds per code.
 */
const test = setupTestEnvironment('otp-flood')
const PLAN = { ratePerSec: 20, burst: 10 }
/** TRANSACTIONAL_TENANT_SLOTS of the test pipeline (the default). */
const SLOTS = 10
const FLOOD_CLIENTS = 10
const FLOOD_MS = 1_500
const MIN_TICKS = 10
/** 20× the plan: each client adds `PER_TICK` messages every 100 ms. */
const PER_TICK = (20 * PLAN.ratePerSec) / FLOOD_CLIENTS / 10
let sink: MailSink
let pipeline: TestPipeline

beforeAll(async () => {
  sink = await startTestSink()
  pipeline = await startTestPipeline(test, sink, {
    logger: testLogger(process.env.TEST_LOG_LEVEL),
    transactionalPlan: PLAN,
    concurrency: { critical: 10, default: 5, bulk: 5 },
  })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})

/** One OTP of B's, from before its insert to the sink's accept. */
async function otpLatencyMs(tenantId: string, to: string): Promise<number> {
  const started = Date.now()
  await seedOtpInOneStatement(pipeline.database.db, { tenantId, to })
  let receivedAt = 0
  await eventually(
    () => {
      const [mail] = sink.store.list({ to })
      if (mail) receivedAt = Date.parse(mail.receivedAt)
      return mail !== undefined
    },
    { what: `B's code to ${to}`, timeoutMs: 20_000, intervalMs: 5 },
  )
  return receivedAt - started
}

/** A's recipients in order of acceptance: when each batch's commit returned, as the API's 202 would. */
/** The length of the longest increasing subsequence: n − it is how many arrived out of order. */
function longestIncreasingRun(values: readonly number[]): number {
  const tails: number[] = []
  for (const value of values) {
    let low = 0
    let high = tails.length
    while (low < high) {
      const middle = (low + high) >> 1
      if ((tails[middle] as number) < value) low = middle + 1
      else high = middle
    }
    tails[low] = value
  }
  return tails.length
}

async function flood(tenantId: string, accepted: string[]): Promise<void> {
  const until = Date.now() + FLOOD_MS
  await Promise.all(
    Array.from({ length: FLOOD_CLIENTS }, async (_, client) => {
      // At least ten ticks each, however long a loaded machine takes to write them: the flood is
      // measured against its plan, so it must have been a flood (CI once wrote only 384 in 1.5 s).
      for (let tick = 0; tick < MIN_TICKS || Date.now() < until; tick++) {
        const due = Date.now() + 100
        const batch = await seedQueuedMessages(pipeline.database.db, {
          tenantId,
          lane: 'critical',
          count: PER_TICK,
          to: (i) => `a-${client}-${tick}-${i}@flood.test`,
        })
        accepted.push(...batch.map((message) => message.toAddress))
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))
      }
    }),
  )
}

it("delivers B's login codes as on an idle lane while A floods at 20× its rate; A held to its plan, nothing lost, in order", async () => {
  const db = pipeline.database.db
  const a = await createTenant(db, 'Flooder')
  const b = await createTenant(db, 'Bystander')
  const idle: number[] = []
  for (let i = 0; i < 5; i++) idle.push(await otpLatencyMs(b, `b-idle-${i}@otp.test`))

  const acceptanceOrder: string[] = []
  const flooding = flood(a, acceptanceOrder)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const flooded: number[] = []
  for (let i = 0; i < 15; i++) flooded.push(await otpLatencyMs(b, `b-flood-${i}@otp.test`))
  await flooding

  const aMail = () => sink.store.list().filter((mail) => mail.to.endsWith('@flood.test'))
  // At the plan's rate, A's flood drains in about (count / rate) seconds after it was accepted.
  await eventually(() => aMail().length >= acceptanceOrder.length, {
    what: `all ${acceptanceOrder.length} of A's messages`,
    timeoutMs: (acceptanceOrder.length / PLAN.ratePerSec) * 1000 + 20_000,
    intervalMs: 250,
  })

  const received = aMail().sort((x, y) => Date.parse(x.receivedAt) - Date.parse(y.receivedAt))
  // The order of acceptance is the one PostgreSQL recorded (the outbox's sequence), not the order in
  // which ten concurrent clients saw their commits return: on a loaded machine those differ by
  // whole batches, and the platform can only keep the order it was given.
  const recorded = await pipeline.database.sql<{ to_address: string }[]>`
    select m.to_address from outbox o join messages m on m.id = (o.payload->>'messageId')::uuid
    where m.tenant_id = ${a} order by o.id`
  expect(recorded.map((row) => row.to_address).sort()).toEqual([...acceptanceOrder].sort())
  const rank = new Map(recorded.map((row, index) => [row.to_address, index]))
  const places = received.map((mail) => rank.get(mail.to) ?? -1)
  // Up to SLOTS of A's sends run side by side (and ten clients commit side by side), so neighbours may
  // swap; out of order is a mail that arrived further than that from its place in the acceptance order.
  const outOfOrder = places.filter((place, index) => Math.abs(place - index) > SLOTS).length
  const swapped = places.length - longestIncreasingRun(places)
  if (process.env.OTP_FLOOD_PLACES) writeFileSync(process.env.OTP_FLOOD_PLACES, JSON.stringify(places))
  const counted = async (name: string) =>
    (await pipeline.registry.getSingleMetric(name)?.get())?.values.find(
      (value) => value.labels.lane === undefined || value.labels.lane === 'critical',
    )?.value ?? 0
  const parked = await counted('fairlane_outbox_parked_total')
  const deferred = await counted('fairlane_jobs_deferred_total')
  console.info(
    JSON.stringify({
      idleMaxMs: Math.max(...idle),
      floodedP50Ms: percentile(flooded, 50),
      floodedMaxMs: Math.max(...flooded),
      aAccepted: acceptanceOrder.length,
      aDelivered: received.length,
      outOfOrder,
      swapped,
      parked,
      deferred,
    }),
  )

  // B: as on an idle lane — never behind A's flood (seconds per code before).
  expect(percentile(flooded, 50)).toBeLessThanOrEqual(Math.max(250, 3 * percentile(idle, 50)))
  expect(Math.max(...flooded)).toBeLessThanOrEqual(2_000)
  // A: its plan at the receiving end, every message once, in order of acceptance as far as sends that
  // run side by side allow (a deferral on an overloaded machine can move a few further).
  expect(acceptanceOrder.length).toBeGreaterThanOrEqual(FLOOD_CLIENTS * PER_TICK * MIN_TICKS)
  expect(
    rateViolations(
      received.map((mail) => Date.parse(mail.receivedAt)),
      PLAN,
    ),
  ).toBe(0)
  expect(duplicateMessageIds(sink)).toEqual([])
  // Measured: 0–7 of 600 alone, 36 of 600 with the whole integration suite sharing two cores (SMTP
  // arrival times jitter by more than SLOTS sends there); 482 of 568 before tenants were parked.
  expect(outOfOrder).toBeLessThanOrEqual(Math.ceil(received.length * 0.1))
  expect(parked).toBeGreaterThan(100)
}, 180_000)
