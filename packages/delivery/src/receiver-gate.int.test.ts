import type { ReceiverGate } from '@fairlane/core/delivery'
import { createReceiverDemand, createTokenBuckets, type RedisClient } from '@fairlane/fairness'
import { connectTestRedis, testRedisPrefix } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createReceiverGate, type ReceiverStates } from './receiver-gate'
import { aimdRateController } from './shaping/rate-controller'

/**
 * The shares on real Redis, as every worker's gate meets them: the token buckets' GCRA script on the
 * server's clock and the demand script, two gates (two workers) each serving one tenant. A tenant
 * asking five times as often as another still gets only its half while both have mail waiting.
 */
const prefix = `${testRedisPrefix('receiver-gate-shares')}:`
let redis: RedisClient

beforeAll(() => {
  redis = connectTestRedis({ redisUrl: inject('redisUrl'), redisCluster: inject('redisCluster') })
  redis.on('error', () => {})
})
afterAll(() => redis.disconnect())

/** No stored states: the provider at its ceiling, never throttled. */
const noStates: ReceiverStates = {
  read: async () => [],
  throttle: async () => {
    throw new Error('no throttle in this test')
  },
}

function gate(options: { shares: boolean; run: string }): ReceiverGate {
  const keys = `${prefix}${options.run}:`
  return createReceiverGate({
    // 600 a minute less the 10 % reserve: 9 a second shared.
    providerOf: async () => ({
      provider: 'google',
      limits: { connections: 5, messagesPerConnection: 50, perMinute: 600 },
    }),
    egressFor: () => '127.0.0.2',
    states: noStates,
    controller: aimdRateController({
      decrease: 0.5,
      pauseMs: 60_000,
      increasePerMinute: 10,
      minPerMinute: 1,
      holdDownMs: 5_000,
    }),
    buckets: createTokenBuckets(redis, { prefix: keys }),
    readReply: () => undefined,
    criticalReserve: 0.1,
    clock: { now: () => Date.now() },
    ...(options.shares ? { demand: createReceiverDemand(redis, { prefix: keys }) } : {}),
  })
}

/**
 * For 2 s and then `forMs`, every 20 ms: B asks five times, then A once (each its own worker's
 * gate). Answers what went in `forMs`.
 */
async function contend(options: { shares: boolean; run: string; forMs: number }) {
  const workers = { a: gate(options), b: gate(options) }
  const sent = { a: 0, b: 0 }
  // The first 2 s are not counted: the provider's burst goes to whoever asks first.
  const countFrom = Date.now() + 2_000
  const ask = (tenantId: 'a' | 'b') =>
    workers[tenantId].admit({ tenantId, lane: 'default', toAddress: `someone@gmail.test` }).then((answer) => {
      if (answer.ok && Date.now() >= countFrom) sent[tenantId]++
    })
  const endAt = countFrom + options.forMs
  while (Date.now() < endAt) {
    await Promise.all([...Array.from({ length: 5 }, () => ask('b')), ask('a')])
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return sent
}

describe('the receiver gate’s shares on Redis', () => {
  it('holds a tenant asking five times as often to its half while the other has mail waiting', async () => {
    const fair = await contend({ shares: true, run: 'fair', forMs: 3_000 })
    // About 9 a second for the 3 s counted: each near half of it.
    expect(fair.a + fair.b).toBeGreaterThanOrEqual(20)
    expect(fair.a + fair.b).toBeLessThanOrEqual(9 * 3 + 2)
    expect(fair.a / (fair.a + fair.b), JSON.stringify(fair)).toBeGreaterThan(0.35)
    expect(fair.b / (fair.a + fair.b), JSON.stringify(fair)).toBeGreaterThan(0.35)
    // Without the demand the same asks are first come, first served: B takes most.
    const firstCome = await contend({ shares: false, run: 'first-come', forMs: 3_000 })
    expect(firstCome.b / (firstCome.a + firstCome.b), JSON.stringify(firstCome)).toBeGreaterThan(0.7)
    console.log(
      `sent in the 3 s counted, A : B: with shares ${fair.a} : ${fair.b}, first come ${firstCome.a} : ${firstCome.b}`,
    )
  }, 30_000)
})
