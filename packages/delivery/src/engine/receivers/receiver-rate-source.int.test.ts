import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { createReceiverStateStore } from '@fairlane/db/queries/receiver-states'
import { setupTestEnvironment } from '@fairlane/testing'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerReceiverMetrics } from './receiver-metrics'
import { createReceiverRateSource } from './receiver-rate-source'

/** `fairlane_receiver_rate` read from real `receiver_states` rows. */
const env = setupTestEnvironment('worker-receiver-rate')
let database: DatabaseHandle

/** A state that says its own rate: the controller's maths are tested in @fairlane/delivery. */
type PlainState = { ratePerMinute: number; pausedUntilMs: number }

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2 })
  const store = createReceiverStateStore<PlainState>(database.db)
  const throttled = (state: PlainState) => () => ({ state, pausedUntil: null })
  await store.throttle(
    { egress: '10.0.0.1', provider: 'google', scope: '' },
    '421 4.7.28',
    throttled({ ratePerMinute: 300, pausedUntilMs: 0 }),
  )
  await store.throttle(
    { egress: '', provider: 'small.example', scope: '' },
    '421 busy',
    throttled({ ratePerMinute: 40, pausedUntilMs: 0 }),
  )
})

afterAll(async () => {
  await database?.close()
})

describe('fairlane_receiver_rate', () => {
  it('reads each stored provider state at scrape time', async () => {
    const registry = new Registry()
    registerReceiverMetrics(registry, {
      cacheMs: 0,
      receivers: createReceiverRateSource({
        db: database.db,
        rates: {
          ceilingOf: () => 600,
          rateOf: ({ state }) => ({
            ...(state as PlainState),
            ceilingPerMinute: 600,
            lastThrottledPerMinute: 600,
          }),
        },
      }),
    })
    const metric = await registry.getSingleMetric('fairlane_receiver_rate')?.get()
    expect(metric?.values.map(({ labels, value }) => ({ labels, value }))).toEqual([
      { labels: { provider: 'google', egress: '10.0.0.1' }, value: 300 },
      { labels: { provider: 'small.example', egress: 'default' }, value: 40 },
    ])
  })
})
