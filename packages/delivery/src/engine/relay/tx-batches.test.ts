import type { Lane } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { batchDelayMs, cutIntoJobs } from './tx-batches'

const row = (id: string, lane: Lane, tenantId: string, delayMs = 0) => ({ id, lane, tenantId, delayMs })
const ids = (jobs: { id: string }[][]) => jobs.map((job) => job.map((entry) => entry.id))

describe('cutIntoJobs', () => {
  it('batches one tenant’s default-lane rows of a pass, in order, each batch where its first row was', () => {
    const rows = [
      row('a1', 'default', 'A'),
      row('b1', 'default', 'B'),
      row('a2', 'default', 'A'),
      row('a3', 'default', 'A'),
      row('a4', 'default', 'A'),
      row('b2', 'default', 'B'),
    ]
    expect(ids(cutIntoJobs(rows, 3))).toEqual([['a1', 'a2', 'a3'], ['b1', 'b2'], ['a4']])
  })

  it('leaves a lone row its own job: nothing waits for a batch to fill', () => {
    expect(ids(cutIntoJobs([row('a1', 'default', 'A')], 20))).toEqual([['a1']])
  })

  it('never batches the critical or bulk lane', () => {
    const rows = [
      row('c1', 'critical', 'A'),
      row('c2', 'critical', 'A'),
      row('k1', 'bulk', 'A'),
      row('k2', 'bulk', 'A'),
    ]
    expect(ids(cutIntoJobs(rows, 20))).toEqual([['c1'], ['c2'], ['k1'], ['k2']])
  })

  it('is one job per row with a batch size of 1', () => {
    const rows = [row('a1', 'default', 'A'), row('a2', 'default', 'A')]
    expect(ids(cutIntoJobs(rows, 1))).toEqual([['a1'], ['a2']])
  })

  it('makes a batch due at its first turn', () => {
    expect(batchDelayMs([row('a1', 'default', 'A', 5), row('a2', 'default', 'A', 6)])).toBe(5)
  })
})
