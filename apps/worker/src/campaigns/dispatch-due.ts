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
  /**
   * Contacts per dispatch transaction: cheap per row, and short. Each insert writes its rows into every
   * index of `messages`; at 2,000 rows four campaigns starting together kept both cores of the
   * benchmark machine busy for 0.6 s and login codes waited 0.3–0.6 s behind them (500: p99 165 ms).
   */
  batchSize: 500,
  /** How long one pass works before it lets the next tick continue from the campaigns' cursors. */
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
  // Side by side but one batch at a time, in turns: campaigns starting together progress together,
  // and dispatch (PostgreSQL's heaviest writes) never takes more than one database connection's
  // worth of CPU from the sends running meanwhile.
  const results: DispatchTally[] = due.map(() => ({ dispatched: 0, excluded: 0 }))
  const started = now()
  let open = due.map((campaign, index) => ({ campaign, result: results[index] as DispatchTally }))
  while (open.length > 0 && now() - started < tuning.sliceMs) {
    const next: typeof open = []
    for (const turn of open) {
      if (now() - started >= tuning.sliceMs) break
      if (await dispatchTurn(deps, turn.campaign, turn.result, tuning.batchSize)) next.push(turn)
    }
    open = next
  }
  for (const result of results) {
    deps.metrics.dispatched.inc({ status: 'pending' }, result.dispatched)
    deps.metrics.dispatched.inc({ status: 'suppressed' }, result.excluded)
  }

  const soon = await findCampaignsDueSoon(deps.db, { withinMs: tuning.lookaheadMs, limit: 100 })
  await Promise.all(soon.map((campaign) => deps.wakeAt(campaign, campaign.dueInMs)))

  return {
    completed: completed.length,
    dispatched: results.reduce((sum, result) => sum + result.dispatched, 0),
    excluded: results.reduce((sum, result) => sum + result.excluded, 0),
  }
}

interface DispatchTally {
  dispatched: number
  excluded: number
}

/** One batch of a campaign's dispatch; true while the campaign has more to dispatch. */
async function dispatchTurn(
  deps: DispatchDeps,
  campaign: DispatchTarget,
  tally: DispatchTally,
  batchSize: number,
): Promise<boolean> {
  const batch = await dispatchCampaignBatch(deps.db, { campaignId: campaign.id, batchSize })
  if (batch.kind === 'skipped') return false
  tally.dispatched += batch.inserted - batch.excluded
  tally.excluded += batch.excluded
  if (batch.inserted > batch.excluded) deps.onPending()
  if (!batch.done) return true
  deps.logger.info(
    { tenantId: campaign.tenantId, campaignId: campaign.id },
    batch.endedEmpty
      ? 'campaign ended: its audience was empty at send time; nothing to send'
      : 'campaign dispatched; sending',
  )
  return false
}
