import {
  type Admission,
  type BatchItem,
  type HeldClaim,
  MessageLockedError,
  OutcomeUnknownSendError,
  type RecordOutcome,
  type SendAttempt,
  type SendGate,
  SendNotRecordedError,
  type SendOutcome,
} from '@fairlane/core/delivery'
import { PermanentSendError, TransientSendError } from '@fairlane/mail/smtp-errors'
import { SEND_BATCH_JOB_NAME, type SendLaneJob, sendJobId } from '@fairlane/queue'
import { DelayedError, type Job, UnrecoverableError } from 'bullmq'
import pino from 'pino'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { TenantGate } from '../fairness/tenant-gate'
import { createWorkerMetrics } from '../metrics'
import { createSendProcessor, RECORD_RETRY_MS } from './send-processor'

const ids = {
  messageId: '0b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
  tenantId: '1b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
}

/** The part of a BullMQ Job the processor touches. */
function fakeJob(
  data: unknown = { v: 1, ...ids },
  options: { attemptsMade?: number; attempts?: number } = {},
) {
  const delays: number[] = []
  const job = {
    id: 'm-job',
    data,
    attemptsMade: options.attemptsMade ?? 0,
    opts: { attempts: options.attempts ?? 15 },
    async moveToDelayed(timestamp: number) {
      delays.push(timestamp)
    },
    async updateData(next: unknown) {
      job.data = next
    },
  }
  return { job: job as unknown as Job, delays }
}

function processorWith(
  send: (job: unknown, log: unknown, gate: SendGate, attempt: SendAttempt) => Promise<SendOutcome>,
  gate?: TenantGate,
  record: (claim: HeldClaim) => Promise<RecordOutcome> = async () => {
    throw new Error('record called for a job that never had an accepted send')
  },
) {
  const registry = new Registry()
  const metrics = createWorkerMetrics(registry)
  const recorded: string[] = []
  const process = createSendProcessor({
    lane: 'bulk',
    send,
    record,
    ...(gate ? { gate } : {}),
    recordDeferral: (tenantId) => recorded.push(tenantId),
    logger: pino({ level: 'silent' }),
    metrics,
  })
  return { process, registry, recorded }
}

describe('send processor', () => {
  it('refuses a malformed payload without retries', async () => {
    const { process } = processorWith(async () => ({ kind: 'skipped', reason: 'not-found' }))
    await expect(process(fakeJob({ v: 2, messageId: 'x' }).job, 'token')).rejects.toBeInstanceOf(
      UnrecoverableError,
    )
  })

  it('records the send latency and returns no personal data', async () => {
    const createdAt = new Date(Date.now() - 1_500)
    const { process, registry } = processorWith(async () => ({
      kind: 'sent',
      createdAt,
      acceptedAt: new Date(createdAt.getTime() + 1_500),
      recorded: true,
    }))
    expect(await process(fakeJob().job, 'token')).toEqual({ kind: 'sent' })
    expect(await registry.metrics()).toMatch(/fairlane_send_latency_seconds_bucket\{le="2.5",lane="bulk"\} 1/)
  })

  it('maps a permanent failure to UnrecoverableError, without the address', async () => {
    const { process } = processorWith(async () => {
      throw new PermanentSendError({
        message: '550 5.1.1 <bob@example.com>: no such user',
        suppressRecipient: true,
      })
    })
    const error = await process(fakeJob().job, 'token').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(UnrecoverableError)
    expect((error as Error).message).toBe('550 5.1.1 <<address>>: no such user')
  })

  it('rethrows a transient failure for the lane backoff', async () => {
    const transient = new TransientSendError({ message: '451 4.7.1 try later', suppressRecipient: false })
    const { process } = processorWith(async () => {
      throw transient
    })
    await expect(process(fakeJob().job, 'token')).rejects.toBe(transient)
  })

  it('defers a job whose message is claimed elsewhere until the lock expires, spending no attempt', async () => {
    const { process } = processorWith(async () => {
      throw new MessageLockedError(ids.messageId, 2_000)
    })
    const { job, delays } = fakeJob()
    const before = Date.now()
    await expect(process(job, 'token')).rejects.toBeInstanceOf(DelayedError)
    expect(delays).toHaveLength(1)
    expect(delays[0]).toBeGreaterThanOrEqual(before + 2_000)
    expect(delays[0]).toBeLessThan(before + 3_000)
  })

  it("hands the use case its tenant's gate, and moves a job without a token to its token's time", async () => {
    const asked: string[] = []
    const left: string[] = []
    const gate: TenantGate = {
      async admit(tenantId, jobId) {
        asked.push(`${tenantId}/${jobId}`)
        return { ok: false, delayMs: 750 }
      },
      async leave(tenantId, jobId) {
        left.push(`${tenantId}/${jobId}`)
      },
    }
    const { process, registry, recorded } = processorWith(async (_job, _log, sendGate) => {
      const admission = await sendGate.admit({ tenantId: ids.tenantId, lane: 'bulk' })
      return !admission.ok
        ? { kind: 'deferred', delayMs: admission.delayMs }
        : { kind: 'skipped', reason: 'not-found' }
    }, gate)
    const { job, delays } = fakeJob()
    const before = Date.now()
    await expect(process(job, 'token')).rejects.toBeInstanceOf(DelayedError)
    // The job's id goes with the admission (its lane slot is held by it, not counted twice), and the
    // deferred job gives its slot back: it no longer waits in the lane.
    expect(asked).toEqual([`${ids.tenantId}/${job.id}`])
    expect(left).toEqual([`${ids.tenantId}/${job.id}`])
    expect(delays).toHaveLength(1)
    expect(delays[0]).toBeGreaterThanOrEqual(before + 750)
    expect(delays[0]).toBeLessThan(before + 1_500)
    expect(recorded).toEqual([ids.tenantId])
    expect(await registry.metrics()).toMatch(/fairlane_jobs_deferred_total\{lane="bulk"\} 1/)
  })

  it("gives the use case an open gate, not the tenant's, without a lock token (the job could not be delayed)", async () => {
    let tenantGateAsked = 0
    const gate: TenantGate = {
      admit: async () => {
        tenantGateAsked += 1
        return { ok: false, delayMs: 500 }
      },
      leave: async () => {},
    }
    let admission: Admission | undefined
    const { process } = processorWith(async (_job, _log, sendGate) => {
      admission = await sendGate.admit({ tenantId: ids.tenantId, lane: 'bulk' })
      return { kind: 'skipped', reason: 'not-found' }
    }, gate)
    await process(fakeJob().job)
    expect(admission).toEqual({ ok: true })
    expect(tenantGateAsked).toBe(0)
  })

  it('counts an unknown outcome and leaves the retry to find the kept claim', async () => {
    const unknown = new OutcomeUnknownSendError('Connection closed unexpectedly')
    const finals: boolean[] = []
    const { process, registry } = processorWith(async (_job, _log, _gate, attempt) => {
      finals.push(attempt.final)
      throw unknown
    })
    await expect(process(fakeJob().job, 'token')).rejects.toBe(unknown)
    await expect(process(fakeJob(undefined, { attemptsMade: 14, attempts: 15 }).job, 'token')).rejects.toBe(
      unknown,
    )
    expect(finals).toEqual([false, true])
    expect(await registry.metrics()).toMatch(/fairlane_send_outcome_unknown_total\{lane="bulk"\} 2/)
  })

  it('keeps the accepted claim in the job when the sent mark fails, and then only records', async () => {
    const lockToken = '2b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11'
    let sends = 0
    const records: HeldClaim[] = []
    let databaseBack = false
    const { process, registry } = processorWith(
      async () => {
        sends += 1
        throw new SendNotRecordedError(ids.messageId, lockToken, { cause: new Error('connection refused') })
      },
      undefined,
      async (claim) => {
        records.push(claim)
        if (!databaseBack) throw new Error('still down')
        return { kind: 'recorded' }
      },
    )
    const { job, delays } = fakeJob(undefined, { attemptsMade: 14, attempts: 15 })
    await expect(process(job, 'token')).rejects.toBeInstanceOf(DelayedError)
    expect(job.data).toEqual({ v: 1, ...ids, acceptedLockToken: lockToken })
    await expect(process(job, 'token')).rejects.toBeInstanceOf(DelayedError)
    databaseBack = true
    expect(await process(job, 'token')).toEqual({ kind: 'sent' })
    expect(sends).toBe(1)
    expect(records).toEqual([
      { ...ids, lockToken },
      { ...ids, lockToken },
    ])
    // Delayed, never failed: no attempt is spent, so the job is never final and never dead-lettered.
    expect(delays).toHaveLength(2)
    expect(await registry.metrics()).toMatch(/fairlane_send_not_recorded_total\{lane="bulk"\} 1/)
  })
})

describe('send processor: batch hand-offs', () => {
  const batchIds = [
    '3b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
    '4b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
    '5b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
    '6b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11',
  ] as const
  const [acceptedId, transientId, waitingId, sentId] = batchIds
  const lockToken = '7b5c4a38-5f5e-4c1e-9d1e-4b0f0e6c8a11'

  function batchProcessor(handOff: (jobs: readonly SendLaneJob[]) => Promise<void>) {
    const batches: string[][] = []
    const process = createSendProcessor({
      lane: 'bulk',
      send: async () => ({ kind: 'skipped', reason: 'not-found' }),
      sendBatch: async (job) => {
        batches.push([...job.messageIds])
        if (batches.length > 1) {
          return {
            items: job.messageIds.map((messageId) => ({
              messageId,
              kind: 'skipped' as const,
              reason: 'already-sent' as const,
            })),
            rest: null,
          }
        }
        const createdAt = new Date()
        const items: BatchItem[] = [
          { messageId: sentId, kind: 'sent', createdAt, acceptedAt: createdAt, recorded: true },
          {
            messageId: acceptedId,
            kind: 'not-recorded',
            generation: 0,
            error: new SendNotRecordedError(acceptedId, lockToken, {
              cause: new Error('connection refused'),
              response: '250 ok',
            }),
          },
          { messageId: transientId, kind: 'retry', generation: 2, error: new Error('451 try later') },
        ]
        return { items, rest: { messageIds: [waitingId], delayMs: 500 } }
      },
      handOff,
      record: async () => ({ kind: 'recorded' }),
      logger: pino({ level: 'silent' }),
      metrics: createWorkerMetrics(new Registry()),
    })
    return { process, batches }
  }

  function batchJob() {
    return fakeJob({ v: 1, tenantId: ids.tenantId, lane: 'bulk', messageIds: [...batchIds] })
  }

  it('keeps the hand-offs in the job when Redis refuses them, and its retry only adds them: the accepted one is never sent again', async () => {
    const added: SendLaneJob[][] = []
    let redisUp = false
    const { process, batches } = batchProcessor(async (jobs) => {
      if (!redisUp) throw new Error('READONLY You cannot write against a read only replica')
      added.push([...jobs])
    })
    const { job } = batchJob()
    Object.assign(job, { name: SEND_BATCH_JOB_NAME })
    await expect(process(job, 'token')).rejects.toThrow(/READONLY/)
    // The job fails (the lane's backoff) carrying its hand-offs; only the waiting one is left to send.
    expect(job.data).toMatchObject({
      messageIds: [waitingId],
      handOffs: [
        { messageId: acceptedId, generation: 0, acceptedLockToken: lockToken, acceptedResponse: '250 ok' },
        { messageId: transientId, generation: 2 },
      ],
    })

    redisUp = true
    expect(await process(job, 'token')).toMatchObject({ kind: 'batch', handedOff: 2 })
    // The retry sent only the waiting one; the accepted one went to its own job, which only records.
    expect(batches).toEqual([[...batchIds], [waitingId]])
    expect(added).toHaveLength(1)
    const [recordOnly, retry] = added[0] ?? []
    expect(recordOnly?.opts.jobId).toBe(sendJobId(acceptedId, 0))
    expect(recordOnly?.data).toEqual({
      v: 1,
      messageId: acceptedId,
      tenantId: ids.tenantId,
      acceptedLockToken: lockToken,
      acceptedResponse: '250 ok',
    })
    expect(recordOnly?.opts.delay).toBe(RECORD_RETRY_MS)
    expect(retry?.opts.jobId).toBe(sendJobId(transientId, 2))
    expect(retry?.data).toEqual({ v: 1, messageId: transientId, tenantId: ids.tenantId })
    expect(job.data).toEqual({ v: 1, tenantId: ids.tenantId, lane: 'bulk', messageIds: [waitingId] })
  })

  it('a retry whose batch was all handed off adds the hand-offs and sends nothing', async () => {
    const added: SendLaneJob[][] = []
    const { process, batches } = batchProcessor(async (jobs) => {
      added.push([...jobs])
    })
    const { job } = fakeJob({
      v: 1,
      tenantId: ids.tenantId,
      lane: 'bulk',
      messageIds: [],
      handOffs: [{ messageId: acceptedId, generation: 1, delayMs: 5_000, acceptedLockToken: lockToken }],
    })
    Object.assign(job, { name: SEND_BATCH_JOB_NAME })
    expect(await process(job, 'token')).toEqual({
      kind: 'batch',
      sent: 0,
      skipped: 0,
      failed: 0,
      handedOff: 1,
    })
    expect(batches).toEqual([])
    expect(added[0]?.map((single) => single.opts.jobId)).toEqual([sendJobId(acceptedId, 1)])
  })
})
