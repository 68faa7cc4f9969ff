import type { Lane } from '@fairlane/core'
import {
  type BatchItem,
  type BatchOutcome,
  isOutcomeUnknown,
  isPermanentFailure,
  MessageLockedError,
  openGate,
  type RecordOutcome,
  type SendAttempt,
  type SendBatchJob,
  type SendGate,
  type SendJob,
  SendNotRecordedError,
  type SendOutcome,
  type SentClaim,
} from '@fairlane/core/delivery'
import {
  type BatchHandOff,
  batchHandOffJob,
  batchTenantOf,
  batchTenants,
  laneRetryDelayMs,
  SEND_BATCH_JOB_NAME,
  type SendBatchJobPayload,
  type SendJobPayload,
  type SendLaneJob,
  sendBatchJobPayload,
  sendJobPayload,
} from '@fairlane/queue'
import { DelayedError, type Job, UnrecoverableError } from 'bullmq'
import type { Logger } from 'pino'
import type { TenantGate } from '../fairness/tenant-gate'
import type { WorkerMetrics } from '../metrics'
import type { FirstTurns } from './first-turns'
import { redactAddresses } from './redact'

/** How long a job that must only record an accepted send waits between tries (PostgreSQL away). */
export const RECORD_RETRY_MS = 5_000

export interface SendProcessorDeps {
  lane: Lane
  /** The bulk lane's: a job marked `fresh` (a new flow's first turn) is in progress while it runs. */
  firstTurns?: Pick<FirstTurns, 'enter'>
  /**
   * `log` is the job's child logger (tenantId, messageId, lane, jobId): the use case logs through it.
   * `gate` takes the tenant's token for this job; the use case asks it once an SMTP connection is held.
   */
  send: (job: SendJob, log: Logger, gate: SendGate, attempt: SendAttempt) => Promise<SendOutcome>
  /**
   * A bulk batch job (`sendBatch`): one tenant's messages over one held connection with one token
   * take. Without it a batch job fails (this worker cannot send batches).
   */
  sendBatch?: (job: SendBatchJob, log: Logger, gate: SendGate) => Promise<BatchOutcome>
  /**
   * Adds the single-message jobs a batch hands its messages to (a transient failure, an unknown
   * outcome, an accepted send to record), each to its tenant's shard of the lane.
   */
  handOff?: (jobs: readonly SendLaneJob[]) => Promise<void>
  /** Dead-letters one message of a batch that failed for good (already marked failed by the send). */
  deadLetterMessage?: (input: BatchDeadLetter) => Promise<void>
  /** Records a send the server accepted under `claim` (`recordAcceptedSend`); never sends. */
  record: (claim: SentClaim, log: Logger) => Promise<RecordOutcome>
  /** The tenant's token bucket: no token, no send (the job waits, delayed, for its token). */
  gate?: TenantGate
  /** Counts a deferral for the daily rollup (`createDeferralRecorder`). */
  recordDeferral?: (tenantId: string) => void
  /** Each send the server accepted, ms after its message was created (the bulk governor's samples). */
  onSent?: (latencyMs: number) => void
  logger: Logger
  metrics: Pick<WorkerMetrics, 'sendLatency' | 'deferred' | 'sendOutcomeUnknown' | 'sendNotRecorded'>
}

/** What a completed job stores in Redis: the outcome's kind and reason, nothing personal. */
export type SendJobResult =
  | { kind: 'sent' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'deferred' }
  /** A batch: how many of its messages were sent, skipped, failed, or handed to their own jobs. */
  | { kind: 'batch'; sent: number; skipped: number; failed: number; handedOff: number }

/** One message of a batch that failed for good, for its own dead letter. */
export interface BatchDeadLetter {
  lane: Lane
  messageId: string
  tenantId: string
  generation: number
  error: Error
  attempts: number
}

/**
 * The BullMQ side of a send, kept thin: parse the payload, call the use case, translate its errors.
 * A permanent failure becomes `UnrecoverableError` (no retries; dead-lettered); a transient one is
 * rethrown for the lane's backoff; a claim held by another attempt defers this job to the lock's
 * expiry without spending an attempt, since retrying sooner can only be refused again.
 *
 * An unknown outcome is counted and rethrown like a transient failure, but the use case kept the
 * claim: the retry finds it held and is deferred to its expiry, so no second copy leaves inside the
 * lock window. A send the server accepted and the database did not record keeps its claim's token in
 * the job's data; from then on the job only records (deferred, no attempt spent, until PostgreSQL
 * answers), so it is never resent by this job nor dead-lettered.
 *
 * The tenant's token is taken by the use case at the last moment, once the message is claimed and
 * composed and an SMTP connection is held (so a job with nothing to send spends none). Without one the use case gives the claim back
 * and the job is moved to delayed until its token is due: the same job, no new job, no attempt spent
 * (`attemptsMade` and the row's `attempts` still count real delivery tries only).
 */
export function createSendProcessor(deps: SendProcessorDeps) {
  return async (job: Job, token?: string): Promise<SendJobResult> => {
    // A new flow's first turn: the old flows' sends in this process hold back until it ends.
    const leave = (job.data as { fresh?: unknown }).fresh === true ? deps.firstTurns?.enter() : undefined
    try {
      return await (job.name === SEND_BATCH_JOB_NAME ? processBatch(job, token) : processOne(job, token))
    } finally {
      leave?.()
    }
  }

  async function processOne(job: Job, token?: string): Promise<SendJobResult> {
    const parsed = sendJobPayload.safeParse(job.data)
    if (!parsed.success) {
      throw new UnrecoverableError(`malformed send payload: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
    }
    const { messageId, tenantId, acceptedLockToken, acceptedResponse } = parsed.data
    const log = deps.logger.child({ tenantId, messageId, lane: deps.lane, jobId: job.id })
    const gate = deps.gate
    // Without a lock token (a processor called outside a Worker) the job could not be moved to
    // delayed, so there is no bucket either. The tenant gate is the lane's own: the job's lane.
    const sendGate: SendGate =
      gate && token ? { admit: (input) => gate.admit(input.tenantId, job.id) } : openGate
    try {
      if (acceptedLockToken) {
        const claim = { messageId, tenantId, lockToken: acceptedLockToken, response: acceptedResponse }
        return await recordOnly(job, token, claim, log)
      }
      return await sendOnce(job, token, parsed.data, log, sendGate)
    } finally {
      // Whatever the outcome, the job no longer waits in the lane: its slot goes back to its tenant.
      if (gate && job.id) {
        await gate
          .leave(tenantId, job.id)
          .catch((error: Error) =>
            log.warn({ err: error.message }, 'could not give back a lane slot; it expires'),
          )
      }
    }
  }

  async function sendOnce(
    job: Job,
    token: string | undefined,
    payload: SendJobPayload,
    log: Logger,
    gate: SendGate,
  ): Promise<SendJobResult> {
    const { messageId, tenantId } = payload
    const attempt = job.attemptsMade + 1
    const final = attempt >= (job.opts?.attempts ?? 1)
    let outcome: SendOutcome
    try {
      outcome = await deps.send({ messageId, tenantId, ahead: payload.fresh === true }, log, gate, { final })
    } catch (error) {
      return settle(error, { job, token, payload, log, attempt, final })
    }
    switch (outcome.kind) {
      case 'deferred': {
        if (!token) throw new Error('a send was deferred without a job lock token to move it with')
        await job.moveToDelayed(Date.now() + outcome.delayMs, token)
        deps.metrics.deferred.inc({ lane: deps.lane })
        deps.recordDeferral?.(tenantId)
        log.debug({ delayMs: outcome.delayMs }, 'no token; deferred')
        throw new DelayedError()
      }
      case 'skipped':
        log.info({ attempt, reason: outcome.reason }, 'message skipped')
        return { kind: 'skipped', reason: outcome.reason }
      case 'sent': {
        const latencyMs = outcome.acceptedAt.getTime() - outcome.createdAt.getTime()
        deps.metrics.sendLatency.observe({ lane: deps.lane }, Math.max(0, latencyMs) / 1000)
        deps.onSent?.(latencyMs)
        log.info({ attempt, latencyMs, recorded: outcome.recorded }, 'message sent')
        return { kind: 'sent' }
      }
    }
  }

  /** Translates the use case's failure for BullMQ: defer, record later, fail for good, or retry. */
  async function settle(
    error: unknown,
    context: {
      job: Job
      token: string | undefined
      payload: SendJobPayload
      log: Logger
      attempt: number
      final: boolean
    },
  ): Promise<never> {
    const { job, token, payload, log, attempt, final } = context
    if (error instanceof MessageLockedError && token) return defer(job, token, error, log)
    if (error instanceof SendNotRecordedError && token) {
      deps.metrics.sendNotRecorded.inc({ lane: deps.lane })
      const data: SendJobPayload = {
        ...payload,
        acceptedLockToken: error.acceptedLockToken,
        ...(error.response === undefined ? {} : { acceptedResponse: error.response.slice(0, 1_000) }),
      }
      await job.updateData(data)
      log.error({ attempt, err: error.cause }, 'accepted send not recorded; the job will only record it')
      return retryRecordLater(job, token)
    }
    const reason = redactAddresses(error instanceof Error ? error.message : String(error))
    if (isPermanentFailure(error)) {
      log.warn({ attempt, err: reason, kind: 'permanent' }, 'send failed permanently')
      throw new UnrecoverableError(reason)
    }
    if (isOutcomeUnknown(error)) {
      deps.metrics.sendOutcomeUnknown.inc({ lane: deps.lane })
      log.warn({ attempt, final, err: reason, kind: 'outcome-unknown' }, 'send outcome unknown; claim kept')
      throw error
    }
    log.warn({ attempt, err: reason, kind: 'transient' }, 'send failed; will retry')
    throw error
  }

  /**
   * A batch job: the use case sends what it can, and each message's outcome is settled here as its own
   * job's would be (metrics, logs, its own dead letter), a message that must go on alone is handed to
   * its own job (attempts, backoff and dead letter per message, as before batches), and the messages
   * that must wait (no token yet, under a dead worker's claim) stay in this job, delayed, nothing spent.
   */
  async function processBatch(job: Job, token: string | undefined): Promise<SendJobResult> {
    const parsed = sendBatchJobPayload.safeParse(job.data)
    if (!parsed.success) {
      throw new UnrecoverableError(`malformed batch payload: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
    }
    if (!deps.sendBatch || !deps.handOff) throw new Error('this worker cannot send batch jobs')
    const { tenantId, laneSlots } = parsed.data
    const log = deps.logger.child({
      tenantId,
      lane: deps.lane,
      jobId: job.id,
      batch: parsed.data.messageIds.length,
      ...(parsed.data.tenantOf ? { tenants: batchTenants(parsed.data).length } : {}),
    })
    try {
      return await runBatch(job, token, parsed.data, log)
    } finally {
      // As for one message: whatever the outcome, the batch no longer waits in the lane, so its
      // messages' slots go back to the tenant (a message handed to its own job holds its slot again
      // when that job runs: the same member).
      if (deps.gate?.leaveMany && laneSlots?.length) {
        await deps.gate
          .leaveMany(tenantId, laneSlots)
          .catch((error: Error) =>
            log.warn({ err: error.message }, 'could not give back a batch’s lane slots; they expire'),
          )
      }
    }
  }

  async function runBatch(
    job: Job,
    token: string | undefined,
    parsed: SendBatchJobPayload,
    log: Logger,
  ): Promise<SendJobResult> {
    if (!deps.sendBatch || !deps.handOff) throw new Error('this worker cannot send batch jobs')
    let payload = parsed
    const result = { kind: 'batch' as const, sent: 0, skipped: 0, failed: 0, handedOff: 0 }
    if (payload.handOffs?.length) {
      // An earlier run could not add these: only added now, never sent by this job.
      await deps.handOff(payload.handOffs.map((handOff) => handOffJob(payload, handOff)))
      result.handedOff += payload.handOffs.length
      const { handOffs: _added, ...rest } = payload
      payload = rest
      if (payload.messageIds.length === 0) {
        log.info(result, 'the hand-offs of an earlier run added; nothing left to send')
        return result
      }
      await job.updateData(payload)
    }
    const { messageIds } = payload
    const gate = deps.gate
    const admitUpTo = gate?.admitUpTo?.bind(gate)
    // As for one message: no lock token, no way to delay the job, so no bucket either.
    const sendGate: SendGate =
      gate && token
        ? {
            admit: (input) => gate.admit(input.tenantId, job.id),
            ...(admitUpTo ? { admitUpTo: (input) => admitUpTo(input.tenantId, input.count) } : {}),
          }
        : openGate
    const outcome = await deps.sendBatch(
      {
        tenantId: payload.tenantId,
        messageIds,
        ...(payload.tenantOf ? { tenantIds: batchTenants(payload) } : {}),
        ahead: payload.fresh === true,
      },
      log,
      sendGate,
    )
    const handOffs: BatchHandOff[] = []
    const deadLetters: Array<Promise<void>> = []
    for (const item of outcome.items) {
      const tenantId = batchTenantOf(payload, item.messageId)
      const itemLog = payload.tenantOf
        ? log.child({ messageId: item.messageId, tenantId })
        : log.child({ messageId: item.messageId })
      const single = settleItem(item, tenantId, itemLog, deadLetters)
      if (single) handOffs.push(single)
      if (item.kind === 'sent') result.sent += 1
      else if (item.kind === 'skipped') result.skipped += 1
      else if (item.kind === 'failed') result.failed += 1
    }
    result.handedOff += handOffs.length
    try {
      if (handOffs.length > 0) await handOffOrKeep(job, payload, outcome, handOffs, log)
    } finally {
      await Promise.all(deadLetters)
    }
    if (outcome.rest) {
      if (!token)
        throw new Error('part of a batch must wait, and there is no job lock token to delay it with')
      const rest: SendBatchJobPayload = { ...payload, messageIds: outcome.rest.messageIds }
      await job.updateData(rest)
      await job.moveToDelayed(Date.now() + outcome.rest.delayMs, token)
      deps.metrics.deferred.inc({ lane: deps.lane })
      for (const tenantId of new Set(rest.messageIds.map((id) => batchTenantOf(payload, id)))) {
        deps.recordDeferral?.(tenantId)
      }
      log.debug(
        { delayMs: outcome.rest.delayMs, waiting: rest.messageIds.length, ...result },
        'batch partly deferred',
      )
      throw new DelayedError()
    }
    log.debug(result, 'batch done')
    return result
  }

  /**
   * Adds the messages' own jobs. If that fails (Redis), the job keeps them in its data and fails: its
   * retry adds them and sends none of them, and its `messageIds` keep only the waiting rest. Retried
   * as a whole instead, the batch would claim an accepted-but-unrecorded message again once its kept
   * claim expired, and send it a second time.
   */
  async function handOffOrKeep(
    job: Job,
    payload: SendBatchJobPayload,
    outcome: BatchOutcome,
    handOffs: readonly BatchHandOff[],
    log: Logger,
  ): Promise<void> {
    try {
      await deps.handOff?.(handOffs.map((handOff) => handOffJob(payload, handOff)))
    } catch (error) {
      const kept: SendBatchJobPayload = {
        ...payload,
        messageIds: outcome.rest?.messageIds ?? [],
        handOffs: [...handOffs],
      }
      try {
        await job.updateData(kept)
      } catch (updateError) {
        // Nothing durable says which were accepted: the retry runs the batch as it was (the window
        // a single-message job whose accepted claim cannot be written to its data has too).
        log.error(
          { err: (updateError as Error).message, handOffs: handOffs.length },
          'could not keep the hand-offs in the batch job; its retry sends the batch as it was',
        )
        throw error
      }
      log.error(
        { err: (error as Error).message, handOffs: handOffs.length },
        'could not add the hand-offs; the batch job fails and its retry adds only them',
      )
      throw error
    }
  }

  /** One message of a batch: counted and logged as its own job would be; its own job, if it goes on. */
  function settleItem(
    item: BatchItem,
    tenantId: string,
    log: Logger,
    deadLetters: Array<Promise<void>>,
  ): BatchHandOff | undefined {
    switch (item.kind) {
      case 'sent': {
        const latencyMs = item.acceptedAt.getTime() - item.createdAt.getTime()
        deps.metrics.sendLatency.observe({ lane: deps.lane }, Math.max(0, latencyMs) / 1000)
        deps.onSent?.(latencyMs)
        log.info({ latencyMs, recorded: item.recorded }, 'message sent')
        return undefined
      }
      case 'skipped':
        log.info({ reason: item.reason }, 'message skipped')
        return undefined
      case 'failed': {
        const reason = reasonOf(item.error)
        log.warn({ err: reason, kind: 'permanent' }, 'send failed permanently')
        if (deps.deadLetterMessage) {
          deadLetters.push(
            deps.deadLetterMessage({
              lane: deps.lane,
              messageId: item.messageId,
              tenantId,
              generation: item.generation,
              error: item.error instanceof Error ? item.error : new Error(reason),
              attempts: item.attempts,
            }),
          )
        }
        return undefined
      }
      case 'retry': {
        log.warn({ err: reasonOf(item.error), kind: 'transient' }, 'send failed; will retry as its own job')
        return handOffOf(item, laneRetryDelayMs(deps.lane, 1))
      }
      case 'outcome-unknown': {
        deps.metrics.sendOutcomeUnknown.inc({ lane: deps.lane })
        log.warn({ err: reasonOf(item.error), kind: 'outcome-unknown' }, 'send outcome unknown; claim kept')
        // Its own job then finds the claim held and waits for its expiry (jitter: not all at once).
        return handOffOf(item, item.retryInMs + 100 + Math.floor(Math.random() * 400))
      }
      case 'not-recorded': {
        deps.metrics.sendNotRecorded.inc({ lane: deps.lane })
        log.error({ err: item.error.cause }, 'accepted send not recorded; its own job will only record it')
        return {
          ...handOffOf(item, RECORD_RETRY_MS),
          acceptedLockToken: item.error.acceptedLockToken,
          ...(item.error.response === undefined
            ? {}
            : { acceptedResponse: item.error.response.slice(0, 1_000) }),
        }
      }
    }
  }

  /** A handed-off message's own job, under its own tenant (a batch may carry several). */
  function handOffJob(payload: SendBatchJobPayload, handOff: BatchHandOff): SendLaneJob {
    return batchHandOffJob({ lane: deps.lane, tenantId: batchTenantOf(payload, handOff.messageId), handOff })
  }

  function handOffOf(item: { messageId: string; generation: number }, delayMs: number): BatchHandOff {
    return {
      messageId: item.messageId,
      generation: item.generation,
      delayMs: Math.max(0, Math.round(delayMs)),
    }
  }

  /** The record-only path: no send, no attempt spent, tried again until the database answers. */
  async function recordOnly(
    job: Job,
    token: string | undefined,
    claim: SentClaim,
    log: Logger,
  ): Promise<SendJobResult> {
    let outcome: RecordOutcome
    try {
      outcome = await deps.record(claim, log)
    } catch (error) {
      if (!token) throw error
      log.error({ err: error }, 'still cannot record an accepted send; trying again later')
      return retryRecordLater(job, token)
    }
    if (outcome.kind === 'recorded') {
      log.info('accepted send recorded')
      return { kind: 'sent' }
    }
    log.info({ reason: outcome.reason }, 'accepted send needed no record')
    return { kind: 'skipped', reason: outcome.reason }
  }
}

async function retryRecordLater(job: Job, token: string): Promise<never> {
  await job.moveToDelayed(Date.now() + RECORD_RETRY_MS + Math.floor(Math.random() * 1_000), token)
  throw new DelayedError()
}

async function defer(job: Job, token: string, error: MessageLockedError, log: Logger): Promise<never> {
  // Jitter so that jobs deferred on many claims of one dead worker do not all wake in the same tick.
  const delayMs = error.retryInMs + 100 + Math.floor(Math.random() * 400)
  await job.moveToDelayed(Date.now() + delayMs, token)
  log.info({ delayMs }, 'message claimed by another attempt; deferred until its lock expires')
  throw new DelayedError()
}

function reasonOf(error: unknown): string {
  return redactAddresses(error instanceof Error ? error.message : String(error))
}
