import type { Lane } from '@fairlane/core'
import {
  isOutcomeUnknown,
  isPermanentFailure,
  MessageLockedError,
  openGate,
  type RecordOutcome,
  type SendAttempt,
  type SendGate,
  type SendJob,
  SendNotRecordedError,
  type SendOutcome,
  type SentClaim,
} from '@fairlane/core/delivery'
import { type SendJobPayload, sendJobPayload } from '@fairlane/queue'
import { DelayedError, type Job, UnrecoverableError } from 'bullmq'
import type { Logger } from 'pino'
import type { TenantGate } from '../fairness/tenant-gate'
import type { WorkerMetrics } from '../metrics'
import { redactAddresses } from './redact'

/** How long a job that must only record an accepted send waits between tries (PostgreSQL away). */
export const RECORD_RETRY_MS = 5_000

export interface SendProcessorDeps {
  lane: Lane
  /**
   * `log` is the job's child logger (tenantId, messageId, lane, jobId): the use case logs through it.
   * `gate` takes the tenant's token for this job; the use case asks it once an SMTP connection is held.
   */
  send: (job: SendJob, log: Logger, gate: SendGate, attempt: SendAttempt) => Promise<SendOutcome>
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
export type SendJobResult = { kind: 'sent' } | { kind: 'skipped'; reason: string } | { kind: 'deferred' }

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
      outcome = await deps.send({ messageId, tenantId }, log, gate, { final })
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
