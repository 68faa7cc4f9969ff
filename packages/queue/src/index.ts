export { acceptPlanOf, createAcceptBuckets } from './accept-buckets'
export {
  batchHandOffJob,
  DEAD_LETTER_JOB_NAME,
  deadLetterJob,
  deadLetterJobId,
  failedJobRetention,
  LANE_BACKOFF_TYPE,
  LANE_JOB_POLICY,
  LANE_RETRY_POLICY,
  laneBackoffStrategy,
  laneJobOptions,
  laneRetryBudgetMs,
  laneRetryDelayMs,
  OLD_FLOWS_PRIORITY,
  parseSendJobId,
  RETENTION,
  SEND_BATCH_JOB_NAME,
  SEND_JOB_NAME,
  type SendBatchLaneJob,
  type SendLaneJob,
  sendBatchJob,
  sendBatchJobId,
  sendJob,
  sendJobId,
} from './catalog'
export {
  createCluster,
  createProbeConnection,
  createProducerConnection,
  createWorkerConnection,
  type ErrorLogger,
  type RedisClient,
  type RedisTarget,
  redisTarget,
} from './connections'
export {
  allLaneQueues,
  createLaneQueues,
  type LaneQueues,
  laneJobCounts,
  oldestWaitingTimestamp,
} from './lane-queues'
export {
  CLUSTER_SLOTS,
  clusterSlotOf,
  type LaneShard,
  laneShardNames,
  laneShards,
  MAX_LANE_SHARDS,
  tenantShard,
} from './lane-shards'
export {
  DEAD_LETTER_QUEUE,
  laneQueueName,
  QUEUE_NAMES,
  type QueueName,
  queuePrefix,
  SYSTEM_QUEUE,
} from './names'
export {
  BATCH_LANES,
  type BatchHandOff,
  type BatchLane,
  batchHandOff,
  batchTenantOf,
  batchTenants,
  type DeadLetterPayload,
  deadLetterPayload,
  MAX_BATCH_MESSAGES,
  type SendBatchJobPayload,
  type SendJobPayload,
  sendBatchJobPayload,
  sendJobPayload,
} from './payloads'
export { closeQueues, createQueues, everyQueue, type Queues } from './queues'
export { deleteKeysMatching, flushAllNodes, masterNodes } from './redis-nodes'
export { judgeRedisPolicy, type PolicyVerdict, parseRedisInfo, type RedisPersistence } from './redis-policy'
export {
  WEBHOOK_JOB_NAME,
  WEBHOOK_QUEUE,
  type WebhookJobPayload,
  webhookJob,
  webhookJobPayload,
} from './webhook-jobs'
