import {
  decodeGovernorHistory,
  GOVERNOR_HISTORY_LENGTH,
  governorKeys,
  readGovernorFactor,
} from '@fairlane/fairness'
import type { AdminDeps } from './deps'
import { queueCall } from './queue-access'

/** The chart's resolution: the worker steers every second; the console shows each 10 s's lowest factor. */
export const GOVERNOR_CHART_STEP_MS = 10_000
/** The chart's span. The list keeps 900 periods, which span longer when no worker steered for a while. */
export const GOVERNOR_CHART_SPAN_MS = 15 * 60_000

/** One step of the chart: the lowest factor and the highest critical p95 of its periods. */
export interface GovernorStep {
  /** Epoch ms of the step's start. */
  t: number
  factor: number
  p95Ms: number | null
}

export interface BulkGovernorView {
  /** The factor the bulk lane runs at now: 1 when no worker steers (the key expired or was never set). */
  factor: number
  /** A worker running the critical lane wrote the factor within the last few seconds. */
  steering: boolean
  /** The last 15 minutes, oldest first. */
  steps: GovernorStep[]
}

/** The bulk governor as the worker left it in Redis (`governorKeys`); 503 when Redis does not answer. */
export async function readBulkGovernor(
  deps: Pick<AdminDeps, 'redis' | 'queuePrefix' | 'clock'>,
): Promise<BulkGovernorView> {
  const keys = governorKeys(deps.queuePrefix)
  const [stored, entries] = await queueCall(() =>
    Promise.all([
      deps.redis.get(keys.factor),
      deps.redis.lrange(keys.history, 0, GOVERNOR_HISTORY_LENGTH - 1),
    ]),
  )
  const factor = readGovernorFactor(stored)
  const since = deps.clock.now().getTime() - GOVERNOR_CHART_SPAN_MS
  return {
    factor: factor ?? 1,
    steering: factor !== undefined,
    steps: governorSteps(decodeGovernorHistory(entries).filter((period) => period.t >= since)),
  }
}

export function governorSteps(periods: ReturnType<typeof decodeGovernorHistory>): GovernorStep[] {
  const steps: GovernorStep[] = []
  for (const period of periods) {
    const t = Math.floor(period.t / GOVERNOR_CHART_STEP_MS) * GOVERNOR_CHART_STEP_MS
    const last = steps.at(-1)
    if (last?.t === t) {
      last.factor = Math.min(last.factor, period.factor)
      if (period.p95Ms !== null) last.p95Ms = Math.max(last.p95Ms ?? 0, period.p95Ms)
    } else {
      steps.push({ t, factor: period.factor, p95Ms: period.p95Ms })
    }
  }
  return steps
}
