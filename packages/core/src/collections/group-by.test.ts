import { describe, expect, it } from 'vitest'
import { groupBy } from './group-by'

describe('groupBy', () => {
  it('keeps the items’ order in each group and the keys’ first appearance between groups', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (item) => item[0])
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ])
    expect(groupBy([], (item: string) => item).size).toBe(0)
  })
})
