import type { Database } from '@fairlane/db'
import {
  completeFinishedCampaigns,
  type DispatchTarget,
  dispatchCampaignBatch,
  findCampaignsDueSoon,
  findDispatchableCampaigns,
} from '@fairlane/db/queries/dispatch'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics'

export const DISPATCH_TUNING = {
  /** Contacts per dispatch transaction: big enough to be cheap per row, small enough to be short. */
  batchSize: 2_000,
  /** How long one pass works on a campaign before it lets the next tick continue from the cursor. */
  sliceMs: 2_000,
  /** Campaigns due within this are given a wake-up at their exact send time. */
  lookaheadMs: 1_500,
  /** Campaigns dispatched side by side in one pass. */
  campaignsPerPass: 10,
}

export interface DispatchDeps {
  db: Database
  /** Called once a batch created pending mail, so the pacer releases it without waiting for its tick. */
  onPending: () => void
  /** Asks for a pass at `dueInMs` from now, so a campaign starts at its send time, not at the next tick. */
  wakeAt: (campaign: DispatchTarget & { sendAtMs: number }, dueInMs: number) => Promise<void>
  logger: Logger
  metrics: Pick<WorkerMetrics, 'dispatched'>
  tuning?: Partial<typeof DISPATCH_TUNING>
  now?: () => number
}

export interface DispatchPassResult {
  completed: number
  dispatched: number
  excluded: number
}

/**
 * One dispatcher pass: campaigns whose mail is all terminal become `sent`; due campaigns (and
 * dispatches a dead worker left half done) are turned into messages batch by batch, side by side,
 * each for at most a slice of time (a million-contact audience continues over the next passes,
 * from its cursor, while small campaigns due meanwhile start at once); campaigns due in the next
 * moment get a wake-up at their send time.
 */
export async function dispatchDue(deps: DispatchDeps): Promise<DispatchPassResult> {
  const tuning = { ...DISPATCH_TUNING, ...deps.tuning }
  const now = deps.now ?? Date.now
  const completed = await completeFinishedCampaigns(deps.db)
  for (const campaign of completed) {
    deps.logger.info({ tenantId: campaign.tenantId, campaignId: campaign.id }, 'campaign sent')
  }

  const due = await findDispatchableCampaigns(deps.db, { limit: tuning.campaignsPerPass })
  const results = await Promise.all(
    due.map(async (campaign) => {
      const started = now()
      let dispatched = 0
      let excluded = 0
      while (now() - started < tuning.sliceMs) {
        const batch = await dispatchCampaignBatch(deps.db, {
          campaignId: campaign.id,
          batchSize: tuning.batchSize,
        })
        if (batch.kind === 'skipped') break
        dispatched += batch.inserted - batch.excluded
        excluded += batch.excluded
        if (batch.inserted > batch.excluded) deps.onPending()
        if (batch.done) {
          deps.logger.info(
            { tenantId: campaign.tenantId, campaignId: campaign.id },
            batch.endedEmpty
              ? 'campaign ended: its audience was empty at send time; nothing to send'
              : 'campaign dispatched; sending',
          )
          break
        }
      }
      deps.metrics.dispatched.inc({ status: 'pending' }, dispatched)
      deps.metrics.dispatched.inc({ status: 'suppressed' }, excluded)
      return { dispatched, excluded }
    }),
  )

  const soon = await findCampaignsDueSoon(deps.db, { withinMs: tuning.lookaheadMs, limit: 100 })
  await Promise.all(soon.map((campaign) => deps.wakeAt(campaign, campaign.dueInMs)))

  return {
    completed: completed.length,
    dispatched: results.reduce((sum, result) => sum + result.dispatched, 0),
    excluded: results.reduce((sum, result) => sum + result.excluded, 0),
  }
}
