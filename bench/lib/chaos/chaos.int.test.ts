import { setupTestEnvironment, startThrowawayRedis, type ThrowawayRedis } from '@fairlane/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type DeliveryPlatform, startDeliveryProcesses } from '../delivery-platform'
import { runChaos } from './scenario'

/**
 * The chaos benchmark in small (worker SIGKILL, FLUSHALL, 451s): correctness only. Most of its time
 * is the sweeper's 30 s before it re-publishes mail whose job the FLUSHALL took.
 */
const test = setupTestEnvironment('bench-chaos')
let redis: ThrowawayRedis | undefined
let platform: DeliveryPlatform | undefined

beforeAll(async () => {
  redis = await startThrowawayRedis()
  platform = await startDeliveryProcesses({
    ...test,
    redisUrl: redis.url,
    env: {
      JOB_LOCK_MS: '3000',
      STALLED_INTERVAL_MS: '1000',
      SEND_LOCK_MS: '9000',
      SMTP_TIMEOUT_MS: '3000',
      // A shallow bulk queue, so the FLUSHALL strands only a few jobs' worth of campaign mail.
      PACER_HIGH_WATER: '40',
    },
  })
})
afterAll(async () => {
  await platform?.stop()
  await redis?.stop()
})

it('loses nothing and repeats only what the kill caught in flight', async () => {
  if (!platform || !redis) throw new Error('platform did not start')
  const admin = redis.admin
  const result = await runChaos(platform, {
    campaign: 300,
    api: 100,
    killAtPercent: 40,
    flushAtPercent: 65,
    faultAtPercent: 80,
    faultMs: 2_000,
    flushQueueRedis: () => admin.flushall(),
    timeoutMs: 75_000,
    log: () => {},
  })
  expect(result).toMatchObject({ total: 400, finished: true, delivered: 400, lost: 0, stuckSending: 0 })
  expect(result.statuses).toEqual({ sent: 400 })
  // A message the sink accepted just before the kill, but whose worker died before recording it, is
  // sent again with the same Message-ID (SMTP's at-least-once window): the only repeat allowed.
  expect(result.duplicates).toBe(result.duplicatesAcrossKill)
  expect(result.duplicates).toBeLessThanOrEqual(result.sendingAtKill ?? 0)
  expect(result.reruns).toBeLessThanOrEqual(result.maxInFlight)
}, 110_000)
