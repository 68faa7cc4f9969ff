import {
  createReceiverStage,
  type ProviderLookup,
  type ReceiverBacklogStore,
  type ReceiverPlanner,
  type ReceiverStage,
  type ReceiverStageOptions,
} from '@fairlane/core/pacing'
import type { Database } from '@fairlane/db'
import { createReceiverBacklogStore } from '@fairlane/db/queries/pacer'
import { createReceiverPlanner } from './receiver-planner'

/** How much of a provider's rate it may take at once after a quiet spell: one second of it. */
export const PROVIDER_BURST_MS = 1_000

/**
 * What the pacer needs to release by receiver (DELIVERY_MODE=mx) instead of by tenant alone:
 * pass it to `startPacer` as `receivers`. The leader's memory (stages, budgets, allowances) lives
 * here, so one value per pacer; a new leader starts with empty stages and full budgets.
 */
export interface ReceiverPacing {
  stage: ReceiverStage
  store: ReceiverBacklogStore
  planner: ReceiverPlanner
  providers: ProviderLookup
  ratePerMinute(provider: string): Promise<number> | number
  tenantRatePerMinute?(tenantId: string, provider: string): Promise<number | undefined> | number | undefined
  tenantSharesPerMinute?(
    provider: string,
    tenants: readonly { tenantId: string; weight: number }[],
  ): Promise<Map<string, number>>
}

export function createReceiverPacing(options: {
  db: Database
  /** A domain's provider (MX lookup + rollup); null while DNS fails for now. */
  providers: ProviderLookup
  /** A provider's rate now, messages a minute, less the critical lane's reserve; 0 while paused. */
  ratePerMinute(provider: string): Promise<number> | number
  /** A tenant's own rate at a provider that throttled its domain alone; undefined otherwise. */
  tenantRatePerMinute?(tenantId: string, provider: string): Promise<number | undefined> | number | undefined
  /** Backlogged tenants' shares of a provider others want too (`Receivers.tenantSharesPerMinute`). */
  tenantSharesPerMinute?(
    provider: string,
    tenants: readonly { tenantId: string; weight: number }[],
  ): Promise<Map<string, number>>
  /** PACER_HORIZON_MS: how far ahead of its plan's rate a tenant's releases may run. */
  horizonMs: number
  providerBurstMs?: number
  stage?: Partial<ReceiverStageOptions>
}): ReceiverPacing {
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
