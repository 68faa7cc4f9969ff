import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type DeliveryPlatform, startDeliveryProcesses } from '../delivery-platform'
import { runThroughput } from './scenario'

/** The throughput benchmark in small: correctness only (every mail once), never a time. */
const test = setupTestEnvironment('bench-throughput')
let platform: DeliveryPlatform | undefined

beforeAll(async () => {
  platform = await startDeliveryProcesses(test)
})
afterAll(async () => {
  await platform?.stop()
})

it('delivers a 300-recipient campaign, both baselines and the signing phases, every mail exactly once', async () => {
  if (!platform) throw new Error('platform did not start')
  const result = await runThroughput(platform, {
    emails: 300,
    baselines: true,
    settleStats: false,
    signed: true,
    // Not `signedRateControl`: its slowed phases (a reply delay per mail) cost CI about 20 s.
    log: () => {},
  })
  expect(result).toMatchObject({
    emails: 300,
    delivered: 300,
    duplicates: 0,
    missing: 0,
    statuses: { sent: 300 },
  })
  expect(result.emailsPerSec).toBeGreaterThan(0)
  expect(result.rawSmtpPerSec).toBeGreaterThan(0)
  expect(result.rawQueueJobsPerSec).toBeGreaterThan(0)
  // Every mail of both phases was sent (a phase throws otherwise); the signed one from the domain.
  expect(result.signing).toMatchObject({ unsigned: { emails: 300 }, signed: { emails: 300 } })
  // The send path's figures were measured (each kind's blocks went through the sink).
  expect(result.signing?.sendPath.cpuMsPerEmail.signed).toBeGreaterThan(0)
  // Five campaigns' worth of mail through the platform: the run, then two rounds of two phases.
}, 180_000)
