import { groupBy, type Lane } from '@fairlane/core'
import {
  type CampaignRenderer,
  type MailTracker,
  recordAcceptedSend,
  type SendBatchDeps,
  type SendStep,
  sendBatch,
  sendMessage,
} from '@fairlane/core/delivery'
import { createDeliveryStore, readUnfinishedMessages } from '@fairlane/db/queries/delivery'
import { findSigningDomain } from '@fairlane/db/queries/sender-signing'
import { governed, type LaneAdmission, type TokenBuckets } from '@fairlane/fairness'
import { type LaneTransports, messageIdFor } from '@fairlane/mail'
import { DEAD_LETTER_QUEUE, failedJobRetention, type Queues, type SendLaneJob } from '@fairlane/queue'
import { createSenderSigner } from '../delivery/sender-signer'
import { DEFAULT_FAILURE_CAPS, DEFAULT_TRANSACTIONAL_LANES, type DeliveryOptions } from '../delivery-options'
import type { BulkGovernor } from '../fairness/bulk-governor'
import type { DeferralRecorder } from '../fairness/deferral-recorder'
import type { PlanCache } from '../fairness/plan-cache'
import { createTenantGate, planSourceFor } from '../fairness/tenant-gate'
import type { Receivers } from '../receivers/start-receivers'
import type { DeliverySignals } from '../signals'
import { createDeadLetters } from './dead-letters'
import { createFirstTurns } from './first-turns'
import { type LaneWorkers, startLaneWorkers } from './lane-workers'
import { createSendProcessor } from './send-processor'
import { createSmtpMailer } from './smtp-mailer'

/**
 * One BullMQ worker per lane shard, each lane's shards sending through the lane's own SMTP pool, behind
 * the tenant's bucket.
 */
export function startLanes(
  options: DeliveryOptions,
  resources: {
    queues: Queues
    transports: LaneTransports
    deadlineMs: number
    buckets: TokenBuckets
    plans: PlanCache
    /** Each tenant's transactional plan (its own, else the platform's) for the critical and default lanes. */
    transactionalPlans?: PlanCache
    campaigns: CampaignRenderer
    /** Open and click tracking of API mail that asked for it. */
    tracker?: MailTracker
    deferrals: DeferralRecorder
    admission: LaneAdmission
    /** Each transactional slot given back is announced on `slotFreed` (the relay listens). */
    signals: Pick<DeliverySignals, 'slotFreed'>
    /** Measures the critical lane's sends; its factor sets the bulk workers' concurrency. */
    governor?: BulkGovernor
    /** MX mode: every lane sends to the recipients' MX hosts, behind the receiving providers' budgets. */
    receivers?: Receivers
  },
): LaneWorkers {
  const { database, logger, metrics } = options
  const store = createDeliveryStore(database.db)
  const returnPathSecret = options.unsubscribe.secrets[0]?.secret
  if (returnPathSecret === undefined)
    throw new Error('UNSUBSCRIBE_SECRET lists no key to sign return paths with')
  // One for every lane: a domain's key is decrypted once per process, whichever lane sends its mail.
  const signer = createSenderSigner({
    load: (input) => findSigningDomain(database.db, input),
    keys: options.dkimEncryptionKeys,
    ...(options.senderSignerTtlMs === undefined ? {} : { ttlMs: options.senderSignerTtlMs }),
  })
  // The gate is the job's own (its tenant's bucket, with its lane slot): the processor gives it per send.
  const { receivers } = resources
  // The bulk lane's first turns in progress in this process: old flows' sends hold back meanwhile.
  const firstTurns = createFirstTurns()
  const mailerFor = (lane: Lane) => {
    const slots = {
      deadlineMs: resources.deadlineMs,
      connections: options.smtp.connections[lane],
      ...(lane === 'bulk' ? { firstTurns } : {}),
    }
    return receivers ? receivers.mailer(slots) : createSmtpMailer(resources.transports[lane], slots)
  }
  const sendDepsFor = (lane: Lane): Omit<SendBatchDeps, 'gate'> => ({
    store,
    mailer: mailerFor(lane),
    ...(receivers?.gate ? { receivers: receivers.gate, maxAgeMs: receivers.maxAgeMs } : {}),
    clock: { now: () => new Date() },
    lockMs: options.sendLockMs,
    mailFrom: options.mailFrom,
    returnPath: { bounceDomain: options.bounceDomain, secret: returnPathSecret },
    signer,
    messageIdFor: (id) => messageIdFor(id, options.mailDomain),
    campaigns: resources.campaigns,
    ...(resources.tracker ? { tracker: resources.tracker } : {}),
    logger: logger.child({ lane }),
  })
  // A batch's messages that go on alone, each to its tenant's shard of the lane.
  const handOff = async (lane: Lane, jobs: readonly SendLaneJob[]) => {
    await Promise.all(
      [...groupBy(jobs, (job) => resources.queues.lanes.queueFor(lane, job.data.tenantId))].map(
        ([queue, shardJobs]) => queue.addBulk(shardJobs),
      ),
    )
  }
  const deadLetters = createDeadLetters({
    db: database.db,
    queue: resources.queues[DEAD_LETTER_QUEUE],
    logger,
    metrics,
    batches: { unfinished: (input) => readUnfinishedMessages(database.db, input), handOff },
  })
  const workers = startLaneWorkers({
    redisUrl: options.redisUrl,
    redisCluster: options.redisCluster,
    prefix: options.queuePrefix,
    laneShards: options.laneShards,
    concurrency: options.concurrency,
    lockMs: options.jobLockMs,
    stalledIntervalMs: options.stalledIntervalMs,
    logger,
    metrics,
    lanes: options.lanes,
    failedRetention: failedJobRetention((options.caps ?? DEFAULT_FAILURE_CAPS).failedJobs),
    deadLetters,
    processorFor: (lane) => {
      const deps = sendDepsFor(lane)
      const observeStep = (step: SendStep, ms: number) => metrics.sendStep.observe({ lane, step }, ms / 1000)
      const gate = createTenantGate({
        lane,
        buckets: resources.buckets,
        planFor: planSourceFor(lane, {
          plans: resources.plans,
          transactional: options.transactionalPlan,
          ...(resources.transactionalPlans ? { transactionalPlans: resources.transactionalPlans } : {}),
        }),
        ...(lane === 'bulk'
          ? {}
          : {
              slots: {
                admission: resources.admission,
                ttlMs: (options.transactionalLanes ?? DEFAULT_TRANSACTIONAL_LANES).slotTtlMs,
                signals: resources.signals,
              },
            }),
      })
      return createSendProcessor({
        lane,
        send: (job, log, gate, attempt) =>
          sendMessage(job, { ...deps, gate, logger: log, onStep: observeStep }, attempt),
        // Batches of one tenant (MX mode: for one receiving provider) from the pacer.
        sendBatch: (job, log, gate) => sendBatch(job, { ...deps, gate, logger: log }),
        handOff: (jobs) => handOff(lane, jobs),
        deadLetterMessage: (input) => deadLetters.onMessageFailed(input),
        record: (claim, log) => recordAcceptedSend(claim, { store: deps.store, logger: log }),
        gate,
        ...(lane === 'bulk' ? { firstTurns } : {}),
        recordDeferral: (tenantId) => resources.deferrals.record(tenantId, lane),
        ...(lane === 'critical' && resources.governor ? { onSent: resources.governor.recordCritical } : {}),
        logger,
        metrics,
      })
    },
  })
  resources.governor?.onChange((factor) => {
    for (const bulk of workers.workers.bulk ?? [])
      bulk.concurrency = governed(options.concurrency.bulk, factor)
  })
  return workers
}
