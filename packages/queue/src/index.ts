export {
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
  parseSendJobId,
  RETENTION,
  SEND_JOB_NAME,
  type SendLaneJob,
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
  DEAD_LETTER_QUEUE,
  laneQueueName,
  QUEUE_NAMES,
  type QueueName,
  queuePrefix,
  SYSTEM_QUEUE,
} from './names'
export { type DeadLetterPayload, deadLetterPayload, type SendJobPayload, sendJobPayload } from './payloads'
export { closeQueues, createQueues, type Queues } from './queues'
export { deleteKeysMatching, flushAllNodes, masterNodes } from './redis-nodes'
export { judgeRedisPolicy, type PolicyVerdict, parseRedisInfo, type RedisPersistence } from './redis-policy'
export {
  WEBHOOK_JOB_NAME,
  WEBHOOK_QUEUE,
  type WebhookJobPayload,
  webhookJob,
  webhookJobPayload,
} from './webhook-jobs'
