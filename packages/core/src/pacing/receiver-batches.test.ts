import { describe, expect, it } from 'vitest'
import { inProviderBatches, type ReleasedForProvider } from './receiver-batches'

const row = (tenantId: string, provider: string, n: number): ReleasedForProvider => ({
  message: { messageId: `${tenantId}-${provider}-${n}`, tenantId, generation: 0 },
  provider,
})

const shape = (batches: ReturnType<typeof inProviderBatches>) =>
  batches.map((batch) => batch.messages.map((message) => message.messageId))

describe('inProviderBatches', () => {
  it('groups each tenant’s rows per provider, never two providers in one batch', () => {
    const released = [
      row('a', 'google', 1),
      row('a', 'microsoft', 1),
      row('a', 'google', 2),
      row('a', 'microsoft', 2),
    ]
    expect(shape(inProviderBatches(released, 50))).toEqual([
      ['a-google-1', 'a-google-2'],
      ['a-microsoft-1', 'a-microsoft-2'],
    ])
  })

  it('never mixes tenants, and cuts a pair’s rows at the batch size', () => {
    const released = [
      row('a', 'google', 1),
      row('b', 'google', 1),
      row('a', 'google', 2),
      row('a', 'google', 3),
      row('b', 'google', 2),
    ]
    const batches = inProviderBatches(released, 2)
    expect(batches.map((batch) => batch.tenantId)).toEqual(['a', 'b', 'a'])
    expect(shape(batches)).toEqual([
      ['a-google-1', 'a-google-2'],
      ['b-google-1', 'b-google-2'],
      ['a-google-3'],
    ])
  })

  it('keeps the plan’s interleaving at batch granularity: a batch takes its first row’s place', () => {
    const released = [
      row('a', 'google', 1),
      row('b', 'others', 1),
      row('a', 'google', 2),
      row('c', 'google', 1),
    ]
    expect(inProviderBatches(released, 50).map((batch) => batch.tenantId)).toEqual(['a', 'b', 'c'])
  })

  it('with a batch size of 1 is one job per row, in order', () => {
    const released = [row('a', 'google', 1), row('a', 'google', 2)]
    expect(shape(inProviderBatches(released, 1))).toEqual([['a-google-1'], ['a-google-2']])
  })

  it('refuses a batch size that is not a whole number of at least 1', () => {
    expect(() => inProviderBatches([], 0)).toThrow(/batchSize/)
    expect(() => inProviderBatches([], 2.5)).toThrow(/batchSize/)
  })
})
