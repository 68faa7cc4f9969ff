import { once } from 'node:events'
import { decodeGovernorHistory, governorKeys } from '@fairlane/fairness'
import { createProducerConnection, type RedisClient } from '@fairlane/queue'
import { eventually, setupTestEnvironment, testRedisTarget } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { type BulkGovernor, governorSettings, startBulkGovernor } from './bulk-governor'

/**
 * Two processes' governors on one real Redis: the critical lane's (steers) and the bulk lane's
 * (follows). The follower must see the steerer's cut within a period, and a factor nobody renews
 * must expire back to full speed.
 */
const env = setupTestEnvironment('bulk-governor')
const TARGET_MS = 100
let redis: RedisClient
const started: BulkGovernor[] = []

beforeAll(async () => {
  redis = createProducerConnection(testRedisTarget(env), 'test-governor', testLogger())
  if (redis.status !== 'ready') await once(redis, 'ready')
})
afterAll(async () => {
  for (const governor of started) governor.stop()
  redis?.disconnect()
})

function governorPair(prefix: string, periodMs: number) {
  const gauges = { critical: [] as number[], bulk: [] as number[] }
  const common = { redis, prefix, settings: governorSettings(TARGET_MS), periodMs, logger: testLogger() }
  const critical = startBulkGovernor({
    ...common,
    steers: true,
    gauge: { set: (v) => gauges.critical.push(v) },
  })
  const bulk = startBulkGovernor({ ...common, steers: false, gauge: { set: (v) => gauges.bulk.push(v) } })
  started.push(critical, bulk)
  return { critical, bulk, gauges }
}

describe('bulk governor across processes', () => {
  it('halves bulk when the critical p95 passes its target, and the bulk process follows', async () => {
    const prefix = `${env.queuePrefix}-halve`
    const key = governorKeys(prefix).factor
    const { critical, bulk, gauges } = governorPair(prefix, 60_000)
    const changes: number[] = []
    bulk.onChange((factor) => changes.push(factor))
    for (let i = 0; i < 20; i++) critical.recordCritical(TARGET_MS * 3)

    await critical.tick()
    expect(critical.factor()).toBe(0.5)
    expect(Number(await redis.get(key))).toBe(0.5)
    const [period] = decodeGovernorHistory(await redis.lrange(governorKeys(prefix).history, 0, -1))
    expect(period).toMatchObject({ factor: 0.5, p95Ms: TARGET_MS * 3 })
    await bulk.tick()
    expect(bulk.factor()).toBe(0.5)
    expect(changes).toEqual([0.5])
    expect(gauges.bulk).toEqual([1, 0.5])

    // Within the same period the lock is held: a second tick does not cut again.
    await critical.tick()
    expect(critical.factor()).toBe(0.5)
  })

  it('recovers a step per period once the p95 is back under the target', async () => {
    const prefix = `${env.queuePrefix}-recover`
    const key = governorKeys(prefix).factor
    await redis.set(key, '0.3', 'PX', 60_000)
    const { critical, bulk } = governorPair(prefix, 50)
    for (let i = 0; i < 20; i++) critical.recordCritical(TARGET_MS * 0.2)
    await eventually(
      async () => {
        await critical.tick()
        return critical.factor() >= 0.5
      },
      { timeoutMs: 5_000, intervalMs: 20, what: 'the factor to grow back' },
    )
    await bulk.tick()
    expect(bulk.factor()).toBeGreaterThanOrEqual(0.5)
    expect(bulk.factor()).toBeLessThanOrEqual(1)
  })

  it('reads full speed when the factor expired (no process steers any more)', async () => {
    const prefix = `${env.queuePrefix}-expired`
    const key = governorKeys(prefix).factor
    await redis.set(key, '0.2', 'PX', 60_000)
    const { bulk } = governorPair(prefix, 60_000)
    await bulk.tick()
    expect(bulk.factor()).toBe(0.2)
    await redis.del(key)
    await bulk.tick()
    expect(bulk.factor()).toBe(1)
  })

  it('keeps its factor when Redis cannot be read', async () => {
    const prefix = `${env.queuePrefix}-down`
    const key = governorKeys(prefix).factor
    await redis.set(key, '0.4', 'PX', 60_000)
    const broken = createProducerConnection(
      { url: 'redis://127.0.0.1:1', cluster: false },
      'test-governor-down',
      testLogger(),
    )
    const warnings: string[] = []
    const logger = testLogger()
    const governor = startBulkGovernor({
      redis,
      prefix,
      settings: governorSettings(TARGET_MS),
      steers: false,
      periodMs: 60_000,
      logger,
      gauge: { set: () => {} },
    })
    started.push(governor)
    await governor.tick()
    expect(governor.factor()).toBe(0.4)

    const offline = startBulkGovernor({
      redis: broken,
      prefix,
      settings: governorSettings(TARGET_MS),
      steers: true,
      periodMs: 60_000,
      redisTimeoutMs: 200,
      logger: { ...logger, warn: (_: unknown, message: string) => warnings.push(message) } as never,
      gauge: { set: () => {} },
    })
    started.push(offline)
    await offline.tick()
    expect(offline.factor()).toBe(1)
    expect(warnings).toEqual(['bulk governor period failed; factor kept'])
    broken.disconnect()
  })
})
