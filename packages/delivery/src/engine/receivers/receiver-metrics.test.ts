import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { type ReceiverRateSample, registerReceiverMetrics } from './receiver-metrics'

async function valuesOf(registry: Registry, name: string) {
  const metric = await registry.getSingleMetric(name)?.get()
  return (metric?.values ?? []).map(({ labels, value }) => ({ labels, value }))
}

describe('receiver metrics', () => {
  it('count replies per provider and class, small domains together as other', async () => {
    const registry = new Registry()
    const metrics = registerReceiverMetrics(registry, { receivers: async () => [] })
    metrics.recordReceiverReply({ provider: 'google', egress: '10.0.0.1', replyClass: 'accepted' })
    metrics.recordReceiverReply({ provider: 'google', egress: '10.0.0.2', replyClass: 'accepted' })
    metrics.recordReceiverReply({ provider: 'google', egress: '10.0.0.1', replyClass: 'throttle' })
    metrics.recordReceiverReply({ provider: 'small.example', egress: '', replyClass: 'temporary' })
    expect(await valuesOf(registry, 'fairlane_receiver_replies_total')).toEqual([
      { labels: { provider: 'google', class: 'accepted' }, value: 2 },
      { labels: { provider: 'google', class: 'throttle' }, value: 1 },
      { labels: { provider: 'other', class: 'temporary' }, value: 1 },
    ])
  })

  it('read the allowed rate at scrape time: named providers, and small domains only while held down', async () => {
    const registry = new Registry()
    let samples: ReceiverRateSample[] = [
      {
        provider: 'google',
        egress: '10.0.0.1',
        ratePerMinute: 0,
        ceilingPerMinute: 600,
        pausedUntil: 'soon',
      },
      { provider: 'microsoft', egress: '', ratePerMinute: 600, ceilingPerMinute: 600 },
      { provider: 'quiet.example', egress: '', ratePerMinute: 600, ceilingPerMinute: 600 },
      { provider: 'slowed.example', egress: '', ratePerMinute: 120.5, ceilingPerMinute: 600 },
    ]
    registerReceiverMetrics(registry, { receivers: async () => samples, cacheMs: 0 })
    expect(await valuesOf(registry, 'fairlane_receiver_rate')).toEqual([
      { labels: { provider: 'google', egress: '10.0.0.1' }, value: 0 },
      { labels: { provider: 'microsoft', egress: 'default' }, value: 600 },
      { labels: { provider: 'slowed.example', egress: 'default' }, value: 120.5 },
    ])
    samples = [{ provider: 'google', egress: '10.0.0.1', ratePerMinute: 320, ceilingPerMinute: 600 }]
    expect(await valuesOf(registry, 'fairlane_receiver_rate')).toEqual([
      { labels: { provider: 'google', egress: '10.0.0.1' }, value: 320 },
    ])
  })

  it('leave the rate empty for a scrape whose read failed, and say so', async () => {
    const registry = new Registry()
    const errors: string[] = []
    registerReceiverMetrics(registry, {
      receivers: () => Promise.reject(new Error('PostgreSQL is away')),
      onError: (what, error) => errors.push(`${what}: ${(error as Error).message}`),
      cacheMs: 0,
    })
    expect(await valuesOf(registry, 'fairlane_receiver_rate')).toEqual([])
    expect(errors).toEqual(['fairlane_receiver_rate: PostgreSQL is away'])
  })
})
