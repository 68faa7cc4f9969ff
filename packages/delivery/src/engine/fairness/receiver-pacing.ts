import {
  createReceiverStage,
  type ProviderLookup,
  type ReceiverBacklogStore,
  type ReceiverPlanner,
  type ReceiverStage,
  type ReceiverStageOptions,
  type ReleaseByReceiverDeps,
} from '@fairlane/core/pacing'
import type { Database } from '@fairlane/db'
import { createReceiverBacklogStore } from '@fairlane/db/queries/pacer'
import { createReceiverPlanner } from './receiver-planner'

/** How much of a provider's rate it may take at once after a quiet spell: one second of it. */
export const PROVIDER_BURST_MS = 1_000

/** The providers' rates the receiver pacer reads (from `Receivers`, MX mode's parts). */
type ProviderRates = Pick<
  ReleaseByReceiverDeps,
  'ratePerMinute' | 'tenantRatePerMinute' | 'tenantSharesPerMinute'
>

/**
 * What the pacer needs to release by receiver (DELIVERY_MODE=mx) instead of by tenant alone:
 * pass it to `startPacer` as `receivers`. The leader's memory (stages, budgets, allowances) lives
 * here, so one value per pacer; a new leader starts with empty stages and full budgets.
 */
export interface ReceiverPacing extends ProviderRates {
  stage: ReceiverStage
  store: ReceiverBacklogStore
  planner: ReceiverPlanner
  providers: ProviderLookup
}

export function createReceiverPacing(
  options: ProviderRates & {
    db: Database
    /** A domain's provider (MX lookup + rollup); null while DNS fails for now. */
    providers: ProviderLookup
    /** PACER_HORIZON_MS: how far ahead of its plan's rate a tenant's releases may run. */
    horizonMs: number
    providerBurstMs?: number
    stage?: Partial<ReceiverStageOptions>
  },
): ReceiverPacing {
  return {
    stage: createReceiverStage(options.stage),
    store: createReceiverBacklogStore(options.db),
    planner: createReceiverPlanner({
      horizonMs: options.horizonMs,
      providerBurstMs: options.providerBurstMs ?? PROVIDER_BURST_MS,
    }),
    providers: options.providers,
    ratePerMinute: options.ratePerMinute,
    ...(options.tenantRatePerMinute ? { tenantRatePerMinute: options.tenantRatePerMinute } : {}),
    ...(options.tenantSharesPerMinute ? { tenantSharesPerMinute: options.tenantSharesPerMinute } : {}),
  }
}
