import { describe, expect, it } from 'vitest'
import { COST_UNIT_BYTES, messageCost } from './message-cost'

describe('messageCost', () => {
  it('charges one token per started 256 KB', () => {
    expect(messageCost(1)).toBe(1)
    expect(messageCost(COST_UNIT_BYTES)).toBe(1)
    expect(messageCost(COST_UNIT_BYTES + 1)).toBe(2)
    expect(messageCost(1024 * 1024)).toBe(4)
    expect(messageCost(10 * 1024 * 1024)).toBe(40)
  })

  it('charges one token when the size is unknown or not a size', () => {
    for (const size of [null, undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(messageCost(size)).toBe(1)
    }
  })
})
