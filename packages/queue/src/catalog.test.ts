import { LANES } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { deadLetterJobId, LANE_JOB_POLICY, laneJobOptions, parseSendJobId, sendJobId } from './catalog'
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

describe('job ids', () => {
  const id = '0b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11'

  it('parses back what sendJobId builds', () => {
    expect(parseSendJobId(sendJobId(id))).toEqual({ messageId: id, generation: 0 })
    expect(parseSendJobId(sendJobId(id, 7))).toEqual({ messageId: id, generation: 7 })
    expect(parseSendJobId('something-else')).toBeUndefined()
  })

  it('derives one dead-letter id per lane job id, without a colon', () => {
    expect(deadLetterJobId(sendJobId(id, 1))).toBe(deadLetterJobId(sendJobId(id, 1)))
    expect(deadLetterJobId(sendJobId(id, 1))).not.toBe(deadLetterJobId(sendJobId(id, 2)))
    expect(deadLetterJobId(sendJobId(id))).not.toContain(':')
  })
})
