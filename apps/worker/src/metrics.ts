import { LANES } from '@fairlane/core'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/** The worker's Prometheus registry; lane, tenant and outbox metrics register here as they arrive. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  registry.setDefaultLabels({ service: 'worker' })
  collectDefaultMetrics({ register: registry })
  return registry
}

export interface WorkerMetrics {
  jobsCompleted: Counter<'lane'>
  /** Every failed attempt, retried or not; `deadLettered` counts the final ones. */
  jobsFailed: Counter<'lane'>
  deadLettered: Counter<'lane'>
  /** Message created (the API accepted it) → the SMTP server accepted it. */
  sendLatency: Histogram<'lane'>
  outboxPublished: Counter
  relayFailures: Counter
  sweeperRepublished: Counter<'status'>
  /** Jobs moved to delayed because the tenant's bucket had no token (per lane; tenants in Redis counters). */
  deferred: Counter<'lane'>
  pacerReleased: Counter
  pacerTicks: Counter<'result'>
  /** Tenants with pending bulk mail and their backlog (capped per tenant at the pacer's count cap), at the last tick. */
  pacerBacklogTenants: Gauge
  pacerBacklog: Gauge
  dispatched: Counter<'status'>
}

/** Registers the delivery metrics; lane series start at 0 so rate() and alerts see them before traffic. */
export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const registers = [registry]
  const metrics: WorkerMetrics = {
    jobsCompleted: new Counter({
      name: 'fairlane_jobs_completed_total',
      help: 'Lane jobs that completed (sent, or skipped as already done)',
      labelNames: ['lane'],
      registers,
    }),
    jobsFailed: new Counter({
      name: 'fairlane_jobs_failed_total',
      help: 'Failed lane job attempts, including ones that are retried',
      labelNames: ['lane'],
      registers,
    }),
    deadLettered: new Counter({
      name: 'fairlane_dead_lettered_total',
      help: 'Lane jobs that failed for good and were added to the dead-letter queue',
      labelNames: ['lane'],
      registers,
    }),
    sendLatency: new Histogram({
      name: 'fairlane_send_latency_seconds',
      help: 'From message creation to SMTP acceptance',
      labelNames: ['lane'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    outboxPublished: new Counter({
      name: 'fairlane_outbox_published_total',
      help: 'Outbox rows the relay turned into queue jobs',
      registers,
    }),
    relayFailures: new Counter({
      name: 'fairlane_relay_failures_total',
      help: 'Relay passes that failed and were rolled back (rows stay unpublished)',
      registers,
    }),
    sweeperRepublished: new Counter({
      name: 'fairlane_sweeper_republished_total',
      help: 'Messages the sweeper put back on their lane because their job was gone',
      labelNames: ['status'],
      registers,
    }),
    deferred: new Counter({
      name: 'fairlane_jobs_deferred_total',
      help: 'Lane jobs moved to delayed because the tenant had no token (no attempt spent)',
      labelNames: ['lane'],
      registers,
    }),
    pacerReleased: new Counter({
      name: 'fairlane_pacer_released_total',
      help: 'Pending bulk messages the pacer released into the bulk queue',
      registers,
    }),
    pacerTicks: new Counter({
      name: 'fairlane_pacer_ticks_total',
      help: 'Pacer ticks by result (released, full, idle, follower, error)',
      labelNames: ['result'],
      registers,
    }),
    pacerBacklogTenants: new Gauge({
      name: 'fairlane_pacer_backlog_tenants',
      help: 'Tenants with pending bulk mail at the last pacer tick',
      registers,
    }),
    pacerBacklog: new Gauge({
      name: 'fairlane_pacer_backlog',
      help: 'Pending bulk messages seen at the last pacer tick (each tenant counted up to the pacer cap)',
      registers,
    }),
    dispatched: new Counter({
      name: 'fairlane_campaign_messages_dispatched_total',
      help: 'Campaign messages created by dispatch, by initial status (pending, suppressed)',
      labelNames: ['status'],
      registers,
    }),
  }
  for (const lane of LANES) {
    metrics.jobsCompleted.inc({ lane }, 0)
    metrics.jobsFailed.inc({ lane }, 0)
    metrics.deadLettered.inc({ lane }, 0)
    metrics.deferred.inc({ lane }, 0)
  }
  return metrics
}
