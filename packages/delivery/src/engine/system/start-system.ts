import { checkReputation, createCompletionCursor } from '@fairlane/core'
import { PLATFORM_TENANT_NAME } from '@fairlane/db/queries/platform-tenant'
import { createReputationStore } from '@fairlane/db/queries/reputation'
import { DEAD_LETTER_QUEUE, type Queues, type RedisClient, SYSTEM_QUEUE } from '@fairlane/queue'
import { dispatchDue } from '../campaigns/dispatch-due'
import { DEFAULT_FAILURE_CAPS, type DELIVERY_TUNING, type DeliveryOptions } from '../delivery-options'
import {
  DEFAULT_DOMAIN_CHECK_SETTINGS,
  DOMAIN_CHECKS_EVERY_MS,
  DOMAIN_CHECKS_SCHEDULER_ID,
  domainCheckHandlers,
} from '../domains/domain-checks-jobs'
import { restoreDeadLetters } from '../lanes/dead-letter-restore'
import { trimDeadLetters } from '../lanes/dead-letter-trim'
import {
  CLEANUP_SCHEDULER_ID,
  DEFAULT_OPERATIONS_SETTINGS,
  OPERATIONS_PATTERNS,
  operationsHandlers,
  ROLLUP_SCHEDULER_ID,
} from '../operations/operations-jobs'
import type { DeliverySignals } from '../signals'
import {
  disableFailingEndpoints,
  WEBHOOK_HEALTH_EVERY_MS,
  WEBHOOK_HEALTH_SCHEDULER_ID,
} from '../webhooks/endpoint-health-jobs'
import {
  CAMPAIGN_DUE_JOB,
  DEAD_LETTER_RESTORE_SCHEDULER_ID,
  DISPATCH_SCHEDULER_ID,
  REPUTATION_CHECK_SCHEDULER_ID,
  SYSTEM_JOB_PAYLOADS,
  type SystemJobCatalog,
  type SystemJobPayload,
  systemHandlers,
  systemSchedules,
} from './system-jobs'
import { startSystemWorker } from './system-worker'

type SystemOptions = Pick<
  DeliveryOptions,
  | 'database'
  | 'redisUrl'
  | 'redisCluster'
  | 'queuePrefix'
  | 'logger'
  | 'metrics'
  | 'operations'
  | 'caps'
  | 'domains'
  | 'appUrl'
>

interface SystemResources {
  queues: Pick<Queues, typeof SYSTEM_QUEUE | typeof DEAD_LETTER_QUEUE>
  /** The queues' connection (the dead-letter queue's completeness marker). */
  redis: RedisClient
  /** `pacerWake`: a dispatch that created pending mail tells the pacer at once. */
  signals: Pick<DeliverySignals, 'pacerWake'>
  tuning: Pick<typeof DELIVERY_TUNING, 'dispatch' | 'system'>
}

/**
 * The system queue's worker: campaign dispatch every second and at each campaign's send time, the
 * nightly cleanup and the daily rollup (cron, in SCHEDULE_TIME_ZONE), the dead-letter check and the
 * sending domains' DNS checks, the webhook endpoints' health (disabling those failing for 3 days);
 * every job as `systemJobCatalog` defines it.
 */
export function startSystem(options: SystemOptions, resources: SystemResources) {
  const catalog = systemJobCatalog(options, resources)
  return startSystemWorker({
    redisUrl: options.redisUrl,
    redisCluster: options.redisCluster,
    prefix: options.queuePrefix,
    queue: resources.queues[SYSTEM_QUEUE],
    handlers: systemHandlers(catalog),
    schedules: systemSchedules(catalog),
    // A long slice of a big dispatch (or the nightly cleanup) must not hold back a campaign's wake-up.
    concurrency: 3,
    reconcileEveryMs: resources.tuning.system.reconcileEveryMs,
    logger: options.logger.child({ component: 'dispatcher' }),
  })
}

/** Every system job: its payload, its schedule, and what it does in this process. */
export function systemJobCatalog(options: SystemOptions, resources: SystemResources): SystemJobCatalog {
  const { queues, signals, tuning } = resources
  const logger = options.logger.child({ component: 'dispatcher' })
  const operations = options.operations ?? DEFAULT_OPERATIONS_SETTINGS
  const deadLetterCaps = (options.caps ?? DEFAULT_FAILURE_CAPS).deadLetters
  const deadLetterLog = options.logger.child({ component: 'dead-letters' })
  const db = options.database.db
  const completion = createCompletionCursor()
  const reputation = createReputationStore(db, {
    appUrl: options.appUrl,
    platformTenantName: PLATFORM_TENANT_NAME,
  })
  const dispatch = () =>
    dispatchDue({
      db,
      completion,
      onPending: () => signals.pacerWake.emit(),
      wakeAt: async (campaign, dueInMs) => {
        const data: SystemJobPayload<typeof CAMPAIGN_DUE_JOB> = { v: 1, campaignId: campaign.id }
        await queues[SYSTEM_QUEUE].add(CAMPAIGN_DUE_JOB, data, {
          jobId: `due-${campaign.id}-${Math.round(campaign.sendAtMs)}`,
          delay: Math.max(0, Math.ceil(dueInMs)),
          removeOnComplete: true,
          removeOnFail: { count: 100 },
        })
      },
      logger,
      metrics: options.metrics,
      tuning: tuning.dispatch,
    })
  const ops = operationsHandlers(operations, {
    db,
    logger: options.logger.child({ component: 'operations' }),
  })
  const domains = domainCheckHandlers(options.domains ?? DEFAULT_DOMAIN_CHECK_SETTINGS, {
    db,
    logger: options.logger.child({ component: 'domains' }),
  })
  return {
    [DISPATCH_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[DISPATCH_SCHEDULER_ID],
      schedule: { everyMs: tuning.dispatch.everyMs },
      handle: dispatch,
    },
    // A campaign's own send time: the same pass, sooner than the next tick.
    [CAMPAIGN_DUE_JOB]: { payload: SYSTEM_JOB_PAYLOADS[CAMPAIGN_DUE_JOB], handle: dispatch },
    [DEAD_LETTER_RESTORE_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[DEAD_LETTER_RESTORE_SCHEDULER_ID],
      schedule: { everyMs: tuning.system.deadLetterCheckEveryMs },
      // Restore first, then trim: a restore stays inside the caps, the trim catches what failures added.
      handle: async () => {
        const restore = await restoreDeadLetters({
          db,
          queue: queues[DEAD_LETTER_QUEUE],
          redis: resources.redis,
          retentionDays: operations.auditRetentionDays,
          caps: deadLetterCaps,
          clock: { now: () => new Date() },
          logger: deadLetterLog,
        })
        const trim = await trimDeadLetters({ queue: queues[DEAD_LETTER_QUEUE], caps: deadLetterCaps })
        if (trim.byAge + trim.byCount > 0) {
          deadLetterLog.warn({ ...trim, caps: deadLetterCaps }, 'dead letters trimmed to their caps')
        }
        return { restore, trim }
      },
    },
    [CLEANUP_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[CLEANUP_SCHEDULER_ID],
      schedule: { pattern: OPERATIONS_PATTERNS[CLEANUP_SCHEDULER_ID], timeZone: operations.timeZone },
      handle: (_payload, job) => ops[CLEANUP_SCHEDULER_ID](job),
    },
    [ROLLUP_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[ROLLUP_SCHEDULER_ID],
      schedule: { pattern: OPERATIONS_PATTERNS[ROLLUP_SCHEDULER_ID], timeZone: operations.timeZone },
      handle: (_payload, job) => ops[ROLLUP_SCHEDULER_ID](job),
    },
    [DOMAIN_CHECKS_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[DOMAIN_CHECKS_SCHEDULER_ID],
      schedule: { everyMs: DOMAIN_CHECKS_EVERY_MS },
      handle: (_payload, job) => domains[DOMAIN_CHECKS_SCHEDULER_ID](job),
    },
    [WEBHOOK_HEALTH_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[WEBHOOK_HEALTH_SCHEDULER_ID],
      schedule: { everyMs: WEBHOOK_HEALTH_EVERY_MS },
      handle: () =>
        disableFailingEndpoints({
          db,
          appUrl: options.appUrl,
          clock: { now: () => new Date() },
          logger: options.logger.child({ component: 'webhooks' }),
        }),
    },
    [REPUTATION_CHECK_SCHEDULER_ID]: {
      payload: SYSTEM_JOB_PAYLOADS[REPUTATION_CHECK_SCHEDULER_ID],
      schedule: { everyMs: REPUTATION_CHECK_EVERY_MS },
      // One store for the process's passes: it keeps the week's counts between them.
      handle: () =>
        checkReputation({ store: reputation, logger: options.logger.child({ component: 'reputation' }) }),
    },
  }
}

/**
 * How often the reputation guardrail looks: a campaign sending 300 mails a second sends 18,000 in a
 * minute, and its bounces come back over the following minutes. Each pass reads the last day's
 * feedback events, and the week's at most every `WEEK_WINDOW_REFRESH_MS` (10 minutes).
 */
export const REPUTATION_CHECK_EVERY_MS = 60_000
