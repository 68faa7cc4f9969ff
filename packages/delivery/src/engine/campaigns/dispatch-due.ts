import {
  type CampaignDueSoon,
  type CompletionCursor,
  DISPATCH_TUNING,
  dispatchDueCampaigns,
} from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { createDispatchStore } from '@fairlane/db/queries/dispatch'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'

export { DISPATCH_TUNING }

export interface DispatchDeps {
  db: Database
  /** Called once a batch created pending mail, so the pacer releases it without waiting for its tick. */
  onPending: () => void
  /** Asks for a pass at `dueInMs` from now, so a campaign starts at its send time, not at the next tick. */
  wakeAt: (campaign: CampaignDueSoon, dueInMs: number) => Promise<void>
  logger: Logger
  metrics: Pick<WorkerMetrics, 'dispatched'>
  tuning?: Partial<typeof DISPATCH_TUNING>
  now?: () => number
  /** The completion check's place, kept between this process's passes (`createCompletionCursor`). */
  completion?: CompletionCursor
}

export interface DispatchPassResult {
  completed: number
  dispatched: number
  excluded: number
}

/** One dispatcher pass (`dispatchDueCampaigns`) against PostgreSQL, its messages counted by status. */
export async function dispatchDue(deps: DispatchDeps): Promise<DispatchPassResult> {
  const outcome = await dispatchDueCampaigns({
    store: createDispatchStore(deps.db),
    onPending: deps.onPending,
    wakeAt: deps.wakeAt,
    logger: deps.logger,
    tuning: { ...DISPATCH_TUNING, ...deps.tuning },
    clock: { nowMs: deps.now ?? Date.now },
    ...(deps.completion ? { completion: deps.completion } : {}),
  })
  deps.metrics.dispatched.inc({ status: 'pending' }, outcome.dispatched)
  deps.metrics.dispatched.inc({ status: 'suppressed' }, outcome.excluded)
  return outcome
}
