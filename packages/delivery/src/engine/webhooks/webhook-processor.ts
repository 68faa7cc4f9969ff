import { type AttemptRules, attemptWebhookDelivery } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { recordWebhookAttempt } from '@fairlane/db/queries/webhook-attempts'
import { findWebhookAttemptTarget } from '@fairlane/db/queries/webhook-deliveries'
import { webhookJobPayload } from '@fairlane/queue'
import { type Job, UnrecoverableError } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'
import { postWebhook, type WebhookAgents } from './post-webhook'

export interface WebhookProcessorOptions {
  db: Database
  agents: WebhookAgents
  timeoutMs: number
  allowPrivate: boolean
  rules: AttemptRules
  /** Called after every attempt: its endpoint has a free slot again (the relay's wake). */
  onSettled(): void
  logger: Logger
  metrics: Pick<WorkerMetrics, 'webhookAttempts'>
}

/**
 * The webhook lane's BullMQ side: reads the job, runs one attempt (`attemptWebhookDelivery`), counts
 * it. An error here (PostgreSQL away while recording) fails the job; the delivery keeps its lease
 * until it runs out and is then attempted again, so nothing is lost, at worst sent twice with the
 * same webhook-id.
 */
export function createWebhookProcessor(options: WebhookProcessorOptions) {
  const store = {
    findTarget: (input: { tenantId: string; deliveryId: string; attempt: number }) =>
      findWebhookAttemptTarget(options.db, input),
    record: (input: Parameters<typeof recordWebhookAttempt>[1]) => recordWebhookAttempt(options.db, input),
  }
  return async (job: Job): Promise<string> => {
    const parsed = webhookJobPayload.safeParse(job.data)
    if (!parsed.success)
      throw new UnrecoverableError(`malformed webhook job: ${parsed.error.issues[0]?.message}`)
    try {
      const outcome = await attemptWebhookDelivery(parsed.data, {
        store,
        clock: { now: () => new Date() },
        rules: options.rules,
        post: (request) =>
          postWebhook({
            ...request,
            timeoutMs: options.timeoutMs,
            allowPrivate: options.allowPrivate,
            agents: options.agents,
          }),
      })
      if (outcome.kind === 'skipped') return 'skipped'
      const { result, decision } = outcome
      options.metrics.webhookAttempts.inc({ outcome: result.ok ? 'delivered' : result.kind })
      if (!result.ok) {
        options.logger.debug(
          {
            deliveryId: parsed.data.deliveryId,
            attempt: parsed.data.attempt,
            kind: result.kind,
            err: result.error,
          },
          'webhook attempt failed',
        )
      }
      return outcome.recorded ? decision.delivery.status : 'lease lost'
    } finally {
      options.onSettled()
    }
  }
}
