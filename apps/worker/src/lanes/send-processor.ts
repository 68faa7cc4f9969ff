import type { Lane } from '@fairlane/core'
import {
  isPermanentFailure,
  MessageLockedError,
  type SendJob,
  type SendOutcome,
} from '@fairlane/core/delivery'
import { sendJobPayload } from '@fairlane/queue'
import { DelayedError, type Job, UnrecoverableError } from 'bullmq'
import type { Logger } from 'pino'
import type { TenantGate } from '../fairness/tenant-gate'
import type { WorkerMetrics } from '../metrics'
import { redactAddresses } from './redact'

export interface SendProcessorDeps {
  lane: Lane
  /** `log` is the job's child logger (tenantId, messageId, lane, jobId): the use case logs through it. */
  send: (job: SendJob, log: Logger) => Promise<SendOutcome>
  /** The tenant's token bucket: no token, no send (the job waits, delayed, for its token). */
  gate?: TenantGate
  /** Counts a deferral for the daily rollup (`createDeferralRecorder`). */
  recordDeferral?: (tenantId: string) => void
  logger: Logger
  metrics: Pick<WorkerMetrics, 'sendLatency' | 'deferred'>
}

/** What a completed job stores in Redis: the outcome's kind and reason, nothing personal. */
export type SendJobResult = { kind: 'sent' } | { kind: 'skipped'; reason: string } | { kind: 'deferred' }

/**
 * The BullMQ side of a send, kept thin: parse the payload, call the use case, translate its errors.
 * A permanent failure becomes `UnrecoverableError` (no retries; dead-lettered); a transient one is
 * rethrown for the lane's backoff; a claim held by another attempt defers this job to the lock's
 * expiry without spending an attempt, since retrying sooner can only be refused again.
 *
 * Before anything else the job takes a token from its tenant's bucket. Without one it is moved to
 * delayed until its token is due (the same job: no new job, no attempt spent, and `attemptsMade`
 * still counts real delivery tries only). A token is charged per send: a job that turns out to have
 * nothing to send gives its token back.
 */
export function createSendProcessor(deps: SendProcessorDeps) {
  return async (job: Job, token?: string): Promise<SendJobResult> => {
    const parsed = sendJobPayload.safeParse(job.data)
    if (!parsed.success) {
      throw new UnrecoverableError(`malformed send payload: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
    }
    const { messageId, tenantId } = parsed.data
    const log = deps.logger.child({ tenantId, messageId, lane: deps.lane, jobId: job.id })
    const attempt = job.attemptsMade + 1
    if (deps.gate && token) {
      const admission = await deps.gate.admit(tenantId)
      if (!admission.ok) {
        await job.moveToDelayed(Date.now() + admission.delayMs, token)
        deps.metrics.deferred.inc({ lane: deps.lane })
        deps.recordDeferral?.(tenantId)
        log.debug({ delayMs: admission.delayMs }, 'no token; deferred')
        throw new DelayedError()
      }
    }
    const refund = async () => {
      await deps.gate
        ?.refund(tenantId)
        .catch((error: Error) => log.warn({ err: error.message }, 'token refund failed'))
    }
    try {
      const outcome = await deps.send({ messageId, tenantId }, log)
      if (outcome.kind === 'skipped') {
        await refund()
        log.info({ attempt, reason: outcome.reason }, 'message skipped')
        return { kind: 'skipped', reason: outcome.reason }
      }
      const latencyMs = outcome.acceptedAt.getTime() - outcome.createdAt.getTime()
      deps.metrics.sendLatency.observe({ lane: deps.lane }, Math.max(0, latencyMs) / 1000)
      log.info({ attempt, latencyMs, recorded: outcome.recorded }, 'message sent')
      return { kind: 'sent' }
    } catch (error) {
      if (error instanceof MessageLockedError && token) {
        await refund()
        return defer(job, token, error, log)
      }
      const reason = redactAddresses(error instanceof Error ? error.message : String(error))
      if (isPermanentFailure(error)) {
        log.warn({ attempt, err: reason, kind: 'permanent' }, 'send failed permanently')
        throw new UnrecoverableError(reason)
      }
      log.warn({ attempt, err: reason, kind: 'transient' }, 'send failed; will retry')
      throw error
    }
  }
}

async function defer(job: Job, token: string, error: MessageLockedError, log: Logger): Promise<never> {
  // Jitter so that jobs deferred on many claims of one dead worker do not all wake in the same tick.
  const delayMs = error.retryInMs + 100 + Math.floor(Math.random() * 400)
  await job.moveToDelayed(Date.now() + delayMs, token)
  log.info({ delayMs }, 'message claimed by another attempt; deferred until its lock expires')
  throw new DelayedError()
}
