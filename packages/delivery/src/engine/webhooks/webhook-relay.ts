import { planWebhookClaims, type ReadyEndpoint, WEBHOOK_CHANNEL } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import {
  type ClaimedWebhookDelivery,
  claimWebhookDeliveries,
  findReadyWebhookEndpoints,
  type ReadyWebhookEndpoint,
  releaseWebhookClaims,
} from '@fairlane/db/queries/webhook-deliveries'
import type { BucketPlan, TokenBuckets } from '@fairlane/fairness'
import { webhookJob } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { Sql } from 'postgres'
import { listenOrPoll } from '../listen-or-poll'
import type { WorkerMetrics } from '../metrics'
import { createWakeSignal } from '../wake-signal'

export interface WebhookRelayOptions {
  db: Database
  /** A dedicated connection for LISTEN (see the outbox relay's). */
  listenSql?: Sql
  queue: Pick<Queue, 'addBulk' | 'getJobCounts'>
  /**
   * Jobs the queue may hold (waiting and running) before the relay stops claiming: leases are meant
   * for attempts about to run, not for a backlog in Redis whose leases would run out while it waits.
   */
  maxQueued: number
  buckets: TokenBuckets
  /** WEBHOOK_TENANT_RATE_PER_SEC and WEBHOOK_TENANT_BURST: each tenant's webhook bucket. */
  tenantPlan: BucketPlan
  /** WEBHOOK_ENDPOINT_CONCURRENCY: attempts in flight per endpoint. */
  endpointConcurrency: number
  /** WEBHOOK_TENANT_CONCURRENCY: attempts in flight per tenant, all its endpoints together. */
  tenantConcurrency: number
  /** How long an attempt's lease lasts: well past the attempt's timeout and its wait in the queue. */
  leaseMs: number
  batchSize: number
  pollMs: number
  maxBackoffMs: number
  logger: Logger
  metrics?: Pick<WorkerMetrics, 'webhookClaimed'>
}

export interface WebhookRelay {
  /** A pass now: a NOTIFY, or an attempt of this process finished and freed its endpoint's slot. */
  wake(): void
  stop(): Promise<void>
}

/**
 * Turns due webhook deliveries into attempts on the webhook lane, fairly (`planWebhookClaims`):
 * endpoints and tenants within their in-flight caps, tenants in turns and within their token bucket,
 * parked endpoints left alone until their park ends (then one probe). A delivery that finds no free
 * slot is not leased, so it never becomes a job and holds none of the lane's workers; the slots are
 * the leases themselves, given back when the attempt is recorded or, after a crash, when the lease
 * runs out. Woken by NOTIFY (new events, replays, an unpark), by this process's finished attempts,
 * and polled as a fallback and for retries whose time came.
 */
export function startWebhookRelay(options: WebhookRelayOptions): WebhookRelay {
  const wakeSignal = createWakeSignal()
  const blocked = new Map<string, number>()
  let after: string | undefined
  let stopped = false
  const listening = listenOrPoll(options.listenSql, {
    channel: WEBHOOK_CHANNEL,
    wake: wakeSignal.wake,
    logger: options.logger,
    who: 'webhook relay',
    fallback: 'relying on its poll',
  })

  async function pass(): Promise<number> {
    const ready = await findReadyWebhookEndpoints(options.db)
    const endpoints = ready.flatMap((endpoint) => readyFor(endpoint, options, blocked))
    if (endpoints.length === 0) return 0
    const tenantSlots = new Map(
      ready.map((endpoint) => [endpoint.tenantId, options.tenantConcurrency - endpoint.tenantInFlight]),
    )
    const counts = await options.queue.getJobCounts('waiting', 'active', 'prioritized')
    const queued = (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.prioritized ?? 0)
    const batchSize = Math.min(options.batchSize, options.maxQueued - queued)
    if (batchSize <= 0) return 0
    const demand = planWebhookClaims({ endpoints, batchSize, after, tenantSlots })
    if (demand.perEndpoint.size === 0) return 0
    const budgets = await takeTokens(demand.perTenant, options, blocked)
    const plan = planWebhookClaims({ endpoints, batchSize, after, budgets, tenantSlots })
    if (plan.perEndpoint.size === 0) return 0
    after = plan.lastTenant
    // Claimed (committed) before the jobs are added: a job that ran before the claim committed would
    // find the delivery unleased and skip it. An add that fails gives the leases back.
    const claimed = await claimWebhookDeliveries(options.db, {
      perEndpoint: plan.perEndpoint,
      leaseMs: options.leaseMs,
      caps: { endpoint: options.endpointConcurrency, tenant: options.tenantConcurrency },
    })
    try {
      await options.queue.addBulk(claimed.map(jobOf))
    } catch (error) {
      await releaseWebhookClaims(options.db, claimed).catch((release: Error) =>
        options.logger.warn({ err: release.message }, 'could not give webhook leases back; they expire'),
      )
      throw error
    }
    options.metrics?.webhookClaimed.inc(claimed.length)
    return claimed.length
  }

  async function loop(): Promise<void> {
    let failures = 0
    while (!stopped) {
      let claimed = 0
      try {
        claimed = await pass()
        failures = 0
      } catch (error) {
        failures += 1
        options.logger.warn(
          { err: (error as Error).message, failures },
          'webhook relay pass failed; retrying',
        )
      }
      if (stopped) break
      if (failures > 0)
        await wakeSignal.sleep(backoffMs(failures, options.maxBackoffMs), { ignoreWake: true })
      else if (claimed < options.batchSize) await wakeSignal.sleep(pauseMs(options.pollMs, blocked))
    }
  }

  const running = loop()
  return {
    wake: wakeSignal.wake,
    async stop() {
      stopped = true
      wakeSignal.interrupt()
      await running
      const listener = await listening
      await listener?.unlisten().catch(() => {})
    },
  }
}

/**
 * What the endpoint may start now: its cap less what is in flight; after a park or a slow answer,
 * one attempt at a time; nothing while its tenant's attempts in flight fill the tenant's cap.
 */
function readyFor(
  endpoint: ReadyWebhookEndpoint,
  caps: Pick<WebhookRelayOptions, 'endpointConcurrency' | 'tenantConcurrency'>,
  blocked: Map<string, number>,
): ReadyEndpoint[] {
  const until = blocked.get(endpoint.tenantId)
  if (until !== undefined && until > Date.now()) return []
  if (endpoint.tenantInFlight >= caps.tenantConcurrency) return []
  const cap = endpoint.probing ? 1 : caps.endpointConcurrency
  const free = cap - endpoint.inFlight
  return free > 0 ? [{ endpointId: endpoint.endpointId, tenantId: endpoint.tenantId, free }] : []
}

/**
 * Each tenant's tokens for this pass, one take per delivery (a refusal spends nothing); a refused
 * tenant is set aside until its next token, so later passes do not ask again in vain.
 */
async function takeTokens(
  wanted: ReadonlyMap<string, number>,
  options: Pick<WebhookRelayOptions, 'buckets' | 'tenantPlan'>,
  blocked: Map<string, number>,
): Promise<Map<string, number>> {
  const budgets = new Map<string, number>()
  await Promise.all(
    [...wanted].map(async ([tenantId, count]) => {
      const takes = await Promise.all(
        Array.from({ length: count }, () => options.buckets.take(`webhooks:${tenantId}`, options.tenantPlan)),
      )
      const granted = takes.filter((take) => take.ok).length
      budgets.set(tenantId, granted)
      const refusal = takes.find((take) => !take.ok)
      if (refusal && !refusal.ok) blocked.set(tenantId, Date.now() + refusal.retryAfterMs)
      else blocked.delete(tenantId)
    }),
  )
  return budgets
}

function jobOf(claim: ClaimedWebhookDelivery) {
  return webhookJob({ v: 1, deliveryId: claim.deliveryId, tenantId: claim.tenantId, attempt: claim.attempt })
}

/** Until the poll, or sooner when a set-aside tenant's next token comes first. */
function pauseMs(pollMs: number, blocked: Map<string, number>): number {
  const now = Date.now()
  let pause = pollMs
  for (const [tenantId, until] of blocked) {
    if (until <= now) blocked.delete(tenantId)
    else pause = Math.min(pause, Math.max(1, until - now))
  }
  return pause
}

function backoffMs(failures: number, maxMs: number): number {
  const base = Math.min(maxMs, 100 * 2 ** Math.min(failures - 1, 16))
  return base / 2 + Math.random() * (base / 2)
}
