import { describe, expect, it } from 'vitest'
import { parseClusterNodes } from './redis-cluster'

describe('parseClusterNodes', () => {
  it('reads roles, masters, failure flags and slot ranges, skipping slots in migration', () => {
    const text = [
      'a1 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460',
      'b2 127.0.0.1:7001@17001 master - 0 1 2 connected 5461-10922 [5462->-c3]',
      'c3 127.0.0.1:7002@17002 master,fail - 0 1 3 disconnected',
      'd4 127.0.0.1:7003@17003 slave a1 0 1 1 connected',
      '',
    ].join('\n')
    expect(parseClusterNodes(text)).toEqual([
      { id: 'a1', port: 7000, role: 'master', masterId: undefined, failed: false, slots: [[0, 5460]] },
      { id: 'b2', port: 7001, role: 'master', masterId: undefined, failed: false, slots: [[5461, 10922]] },
      { id: 'c3', port: 7002, role: 'master', masterId: undefined, failed: true, slots: [] },
      { id: 'd4', port: 7003, role: 'replica', masterId: 'a1', failed: false, slots: [] },
    ])
  })

  it('reads a single slot as a range of one', () => {
    expect(parseClusterNodes('e5 127.0.0.1:7004@17004 master - 0 0 5 connected 42')[0]?.slots).toEqual([
      [42, 42],
    ])
  })
})
