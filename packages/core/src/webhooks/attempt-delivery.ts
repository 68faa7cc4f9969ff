import {
  type AttemptDecision,
  type AttemptResult,
  type AttemptRules,
  decideAfterAttempt,
} from './attempt-outcome'
import { signWebhook, type WebhookHeaders } from './sign'

/** A delivery whose attempt holds the lease, with what its request needs. */
export interface AttemptTarget {
  deliveryId: string
  tenantId: string
  endpointId: string
  url: string
  webhookId: string
  payload: Record<string, unknown>
  /** The current secret, then the previous one while its grace period lasts. */
  secrets: string[]
  parkLevel: number
}

export interface AttemptStore {
  /** Null when the attempt no longer holds the lease, the delivery is no longer pending, or the endpoint was disabled. */
  findTarget(input: { tenantId: string; deliveryId: string; attempt: number }): Promise<AttemptTarget | null>
  /** Writes the attempt, the delivery's state and the endpoint's health together; false when the lease was lost. */
  record(input: {
    tenantId: string
    deliveryId: string
    endpointId: string
    attempt: number
    result: AttemptResult
    decision: AttemptDecision
  }): Promise<boolean>
}

export interface AttemptDeliveryDeps {
  store: AttemptStore
  post(input: { url: string; body: string; headers: WebhookHeaders }): Promise<AttemptResult>
  clock: { now(): Date }
  rules?: AttemptRules
}

export type AttemptDeliveryOutcome =
  | { kind: 'skipped' }
  | { kind: 'attempted'; result: AttemptResult; decision: AttemptDecision; recorded: boolean }

/**
 * One attempt of one delivery: sign the stored payload (a fresh timestamp each attempt, the same
 * webhook-id on all of them), POST it, and record what came back. The body is the payload as it was
 * when the event happened, serialized once here so the signature covers exactly the bytes sent.
 */
export async function attemptWebhookDelivery(
  job: { tenantId: string; deliveryId: string; attempt: number },
  deps: AttemptDeliveryDeps,
): Promise<AttemptDeliveryOutcome> {
  const target = await deps.store.findTarget(job)
  if (!target) return { kind: 'skipped' }
  const body = JSON.stringify(target.payload)
  const headers = signWebhook({
    webhookId: target.webhookId,
    timestamp: deps.clock.now(),
    body,
    secrets: target.secrets,
  })
  const result = await deps.post({ url: target.url, body, headers })
  const decision = decideAfterAttempt(
    { attempt: job.attempt, result, parkLevel: target.parkLevel, now: deps.clock.now() },
    deps.rules,
  )
  const recorded = await deps.store.record({
    tenantId: target.tenantId,
    deliveryId: target.deliveryId,
    endpointId: target.endpointId,
    attempt: job.attempt,
    result,
    decision,
  })
  return { kind: 'attempted', result, decision, recorded }
}
