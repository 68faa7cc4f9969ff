export { type DaysToRollInput, daysToRoll, type RollupDay } from './days-to-roll'
export {
  type ExpireMessagesDeps,
  expireMessages,
  type MessageRetentionStore,
  messageRetentionBounds,
  type RetentionBatch,
  type RetentionKey,
} from './expire-messages'
export { type MetricsRefusal, metricsRefusal } from './metrics-access'
export {
  ROLLUP_CURSOR_NAME,
  type RollUpDaysDeps,
  type RollUpDaysResult,
  type RollupStore,
  rollUpDays,
} from './roll-up-days'
