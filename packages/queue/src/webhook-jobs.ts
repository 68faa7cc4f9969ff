import type { JobsOptions } from 'bullmq'
import { z } from 'zod'

/**
 * The webhook lane: a queue of its own with its own worker, concurrency and HTTP agent, so a tenant's
 * slow endpoint can never take a mail lane's worker. Not in `QUEUE_NAMES` (the mail lanes and their
 * companions): its retries are scheduled in PostgreSQL (`webhook_deliveries.next_attempt_at`), and a
 * job is only one attempt in flight.
 */
export const WEBHOOK_QUEUE = 'webhooks'
export const WEBHOOK_JOB_NAME = 'webhook.attempt'

/** One attempt: ids only; `attempt` is the lease's token (the delivery's attempt number when claimed). */
export const webhookJobPayload = z.object({
  v: z.literal(1),
  deliveryId: z.uuid(),
  tenantId: z.uuid(),
  attempt: z.number().int().positive(),
})
export type WebhookJobPayload = z.infer<typeof webhookJobPayload>

/**
 * One attempt's job. Its id names the attempt, so a relay that adds it twice (a retried commit) adds
 * one job; BullMQ never retries it (a failed attempt is scheduled again in PostgreSQL, as a new
 * attempt), and the job is gone once it ran: the attempt's record is `webhook_attempts`.
 */
export function webhookJob(payload: WebhookJobPayload): {
  name: string
  data: WebhookJobPayload
  opts: JobsOptions
} {
  return {
    name: WEBHOOK_JOB_NAME,
    data: payload,
    opts: {
      jobId: `${payload.deliveryId}.${payload.attempt}`,
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: { count: 1_000 },
    },
  }
}
