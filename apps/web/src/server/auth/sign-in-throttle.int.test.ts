import { createProducerConnection } from '@fairlane/queue'
import { setupTestEnvironment } from '@fairlane/testing'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { collectingLogger } from '../test-support/logger'
import { FAILED_SIGN_IN_WINDOW_SEC, FAILED_SIGN_INS_ALLOWED, signInThrottle } from './sign-in-throttle'

const env = setupTestEnvironment('sign-in-throttle')
let redis: Redis

beforeAll(() => {
  redis = createProducerConnection(env.redisUrl, 'sign-in-throttle-test', collectingLogger())
})

afterAll(() => {
  redis?.disconnect()
})

it('refuses an address after its failed attempts run out, case-blind, and leaves other addresses alone', async () => {
  const throttle = signInThrottle(redis, env.queuePrefix)
  for (let attempt = 0; attempt < FAILED_SIGN_INS_ALLOWED - 1; attempt++) {
    await throttle.recordFailure('Guess@Example.test')
  }
  expect(await throttle.retryAfterSec('guess@example.test')).toBe(0)
  await throttle.recordFailure('guess@example.test')
  const wait = await throttle.retryAfterSec(' GUESS@example.test ')
  expect(wait).toBeGreaterThan(FAILED_SIGN_IN_WINDOW_SEC - 60)
  expect(wait).toBeLessThanOrEqual(FAILED_SIGN_IN_WINDOW_SEC)
  expect(await throttle.retryAfterSec('someone-else@example.test')).toBe(0)
})
