export {
  DEFAULT_USAGE_DAYS,
  type GetUsageInput,
  getUsage,
  MAX_USAGE_DAYS,
  type UsageDay,
  type UsageReport,
  usageRange,
} from './get-usage'
export type { UsageCounts, UsageOutcomes, UsageRow, UsageStore } from './ports'
