import { LANES } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import {
  deadLetterJobId,
  LANE_BACKOFF_TYPE,
  LANE_JOB_POLICY,
  LANE_RETRY_POLICY,
  laneBackoffStrategy,
  laneJobOptions,
  laneRetryBudgetMs,
  laneRetryDelayMs,
  parseSendJobId,
  SEND_BATCH_JOB_NAME,
  SEND_JOB_NAME,
  sendBatchJob,
  sendBatchJobId,
  sendJob,
  sendJobId,
} from './catalog'
import { QUEUE_NAMES } from './names'
import { batchTenantOf, batchTenants, sendBatchJobPayload, sendJobPayload } from './payloads'

describe('job catalog', () => {
  it('has a queue per lane plus dead-letter and system', () => {
    expect(QUEUE_NAMES).toEqual(['critical', 'default', 'bulk', 'dead-letter', 'system'])
  })

  it('gives every lane retries with jittered exponential backoff and pruning', () => {
    for (const lane of LANES) {
      const options = laneJobOptions(lane)
      expect(options.attempts).toBeGreaterThan(1)
      expect(options.backoff).toMatchObject({ type: LANE_BACKOFF_TYPE })
      expect(options.removeOnComplete).toBeTruthy()
    }
    expect(LANE_JOB_POLICY.critical.backoff.delay).toBeLessThan(LANE_JOB_POLICY.bulk.backoff.delay)
  })

  it('doubles the retry delay up to the lane cap, drawn from the upper half', () => {
    const top = () => 1
    const bottom = () => 0
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => laneRetryDelayMs('critical', n, top))).toEqual([
      250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ])
    expect(laneRetryDelayMs('critical', 3, bottom)).toBe(500)
    expect(laneRetryDelayMs('bulk', 15, top)).toBe(300_000)
    for (let n = 1; n < 40; n++) {
      const delay = laneRetryDelayMs('default', n)
      expect(delay).toBeGreaterThanOrEqual(Math.min(60_000, 1_000 * 2 ** (n - 1)) / 2)
      expect(delay).toBeLessThanOrEqual(60_000)
    }
  })

  it('rides out a minute of 421/451 on every lane, even with the shortest draws', () => {
    for (const lane of LANES) {
      let waited = 0
      for (let attempt = 1; attempt < LANE_RETRY_POLICY[lane].attempts; attempt++) {
        waited += laneRetryDelayMs(lane, attempt, () => 0)
      }
      expect(waited).toBeGreaterThan(60_000)
    }
    expect(laneRetryBudgetMs('critical')).toBeLessThan(3 * 60_000)
  })

  it("computes lane backoff from the job's queue and refuses an unknown type", () => {
    expect(
      laneBackoffStrategy(1, LANE_BACKOFF_TYPE, undefined, { queueName: 'critical' }),
    ).toBeLessThanOrEqual(250)
    expect(() => laneBackoffStrategy(1, 'exponential', undefined, { queueName: 'critical' })).toThrow(
      /backoff/,
    )
    expect(() => laneBackoffStrategy(1, LANE_BACKOFF_TYPE, undefined, { queueName: 'system' })).toThrow(
      /system/,
    )
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

describe('sendJob', () => {
  const messageId = '0193a4b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b'
  const tenantId = '0193a4b2-7c1d-7e8f-9a0b-aaaaaaaaaaaa'

  it("is the lane's send job: its name, a payload the worker accepts, the lane's options and the stable id", () => {
    for (const lane of LANES) {
      const job = sendJob({ lane, messageId, tenantId, generation: 0 })
      expect(job.name).toBe(SEND_JOB_NAME)
      expect(sendJobPayload.parse(job.data)).toEqual({ v: 1, messageId, tenantId })
      expect(job.opts).toEqual({ ...laneJobOptions(lane), jobId: `m-${messageId}` })
    }
  })

  it('gives a re-published generation its own job id, and carries nothing personal', () => {
    const job = sendJob({ lane: 'bulk', messageId, tenantId, generation: 3 })
    expect(job.opts.jobId).toBe(`m-${messageId}-g3`)
    expect(parseSendJobId(job.opts.jobId)).toEqual({ messageId, generation: 3 })
    expect(Object.keys(job.data).sort()).toEqual(['messageId', 'tenantId', 'v'])
  })
})

describe('sendBatchJob', () => {
  const tenantId = '0193a4b2-7c1d-7e8f-9a0b-aaaaaaaaaaaa'
  const ids = ['0193a4b2-7c1d-7e8f-9a0b-000000000001', '0193a4b2-7c1d-7e8f-9a0b-000000000002']

  it('carries the tenant and its messages in order, under an id of its first message and generation', () => {
    const job = sendBatchJob({
      tenantId,
      messages: ids.map((messageId, index) => ({ messageId, generation: index })),
    })
    expect(job.name).toBe(SEND_BATCH_JOB_NAME)
    expect(sendBatchJobPayload.parse(job.data)).toEqual({ v: 1, tenantId, lane: 'bulk', messageIds: ids })
    expect(job.opts).toEqual({ ...laneJobOptions('bulk'), jobId: `b-${ids[0]}` })
    expect(sendBatchJobId(ids[0] as string, 2)).toBe(`b-${ids[0]}-g2`)
    // Never the id of the first message's own job, and no colon.
    expect(job.opts.jobId).not.toBe(sendJobId(ids[0] as string))
    expect(parseSendJobId(job.opts.jobId)).toBeUndefined()
    expect(job.opts.jobId).not.toContain(':')
  })

  it('carries the lane slots of its messages on the default lane (the relay’s batches)', () => {
    const job = sendBatchJob({
      lane: 'default',
      tenantId,
      messages: ids.map((messageId, index) => ({ messageId, generation: index })),
    })
    expect(sendBatchJobPayload.parse(job.data)).toEqual({
      v: 1,
      tenantId,
      lane: 'default',
      messageIds: ids,
      laneSlots: [sendJobId(ids[0] as string, 0), sendJobId(ids[1] as string, 1)],
    })
    expect(job.opts).toEqual({ ...laneJobOptions('default'), jobId: `b-${ids[0]}` })
  })

  it('names each message’s tenant when it carries several tenants’ first turns, as version 2 (refused by a worker that knows only 1)', () => {
    const other = '0193a4b2-7c1d-7e8f-9a0b-bbbbbbbbbbbb'
    const job = sendBatchJob({
      tenantId,
      messages: [
        { messageId: ids[0] as string, generation: 0, tenantId },
        { messageId: ids[1] as string, generation: 0, tenantId: other },
      ],
      fresh: true,
    })
    const payload = sendBatchJobPayload.parse(job.data)
    expect(payload).toEqual({
      v: 2,
      tenantId,
      tenantOf: { [ids[0] as string]: tenantId, [ids[1] as string]: other },
      lane: 'bulk',
      messageIds: ids,
      fresh: true,
    })
    expect(batchTenants(payload)).toEqual([tenantId, other])
    expect(batchTenantOf(payload, ids[1] as string)).toBe(other)
    // One tenant's messages, each naming it, stay a version 1 batch.
    const own = sendBatchJob({
      tenantId,
      messages: ids.map((messageId) => ({ messageId, generation: 0, tenantId })),
    })
    expect(own.data).toEqual({ v: 1, tenantId, lane: 'bulk', messageIds: ids })
    expect(batchTenants(own.data)).toEqual([tenantId])
    // Only the bulk lane's pacer makes them; a payload must say each message's tenant, as version 2.
    expect(() =>
      sendBatchJob({
        lane: 'default',
        tenantId,
        messages: [{ messageId: ids[0] as string, generation: 0, tenantId: other }],
      }),
    ).toThrow(/only a bulk batch/)
    expect(sendBatchJobPayload.safeParse({ ...payload, v: 1 }).success).toBe(false)
    expect(sendBatchJobPayload.safeParse({ ...payload, tenantOf: undefined }).success).toBe(false)
    expect(sendBatchJobPayload.safeParse({ ...payload, lane: 'default' }).success).toBe(false)
    expect(
      sendBatchJobPayload.safeParse({ ...payload, tenantOf: { [ids[0] as string]: tenantId } }).success,
    ).toBe(false)
  })

  it('refuses an empty batch, a repeated message and the critical lane', () => {
    expect(() => sendBatchJob({ tenantId, messages: [] })).toThrow(/at least one message/)
    const ok = { v: 1, tenantId, lane: 'bulk', messageIds: ids }
    expect(sendBatchJobPayload.safeParse(ok).success).toBe(true)
    expect(sendBatchJobPayload.safeParse({ ...ok, messageIds: [] }).success).toBe(false)
    expect(sendBatchJobPayload.safeParse({ ...ok, messageIds: [ids[0], ids[0]] }).success).toBe(false)
    expect(sendBatchJobPayload.safeParse({ ...ok, lane: 'default' }).success).toBe(true)
    expect(sendBatchJobPayload.safeParse({ ...ok, lane: 'critical' }).success).toBe(false)
    expect(sendBatchJobPayload.safeParse({ ...ok, messageIds: ['x'] }).success).toBe(false)
  })
})
