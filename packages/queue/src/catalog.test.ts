import { LANES } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { LANE_JOB_POLICY, laneJobOptions, sendJobId } from './catalog'
import { QUEUE_NAMES } from './names'
import { sendJobPayload } from './payloads'

describe('job catalog', () => {
  it('has a queue per lane plus dead-letter and system', () => {
    expect(QUEUE_NAMES).toEqual(['critical', 'default', 'bulk', 'dead-letter', 'system'])
  })

  it('gives every lane retries with jittered exponential backoff and pruning', () => {
    for (const lane of LANES) {
      const options = laneJobOptions(lane)
      expect(options.attempts).toBeGreaterThan(1)
      expect(options.backoff).toMatchObject({ type: 'exponential' })
      expect(options.removeOnComplete).toBeTruthy()
    }
    expect(LANE_JOB_POLICY.critical.backoff.delay).toBeLessThan(LANE_JOB_POLICY.bulk.backoff.delay)
  })

  it('derives a stable job id without the colon BullMQ reserves', () => {
    const id = '0b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11'
    expect(sendJobId(id)).toBe(sendJobId(id))
    expect(sendJobId(id, 1)).not.toBe(sendJobId(id))
    expect(sendJobId(id)).not.toContain(':')
  })

  it('accepts only versioned id-only payloads', () => {
    const ok = {
      v: 1,
      messageId: '0b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
      tenantId: '1b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
    }
    expect(sendJobPayload.parse(ok)).toEqual(ok)
    expect(sendJobPayload.safeParse({ ...ok, v: 2 }).success).toBe(false)
    expect(sendJobPayload.safeParse({ ...ok, messageId: 'x' }).success).toBe(false)
  })
})
