import type { CampaignDueSoon, DispatchLogger, DispatchStore, DispatchTarget } from './ports'

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
  /**
   * Campaigns `sending` checked for completion per pass, in turn by id: ten thousand small campaigns
   * sending at once are each seen every twenty passes, at about 50 ms of index probes a pass instead
   * of the ~0.9 s that checking all of them every pass took (`bench:fairness --tenants`).
   */
  completionSlice: 500,
}

export type DispatchTuning = typeof DISPATCH_TUNING

export interface DispatchDueCampaignsDeps {
  store: DispatchStore
  /** Called once a batch created pending mail, so the pacer releases it without waiting for its tick. */
  onPending: () => void
  /** Asks for a pass at `dueInMs` from now, so a campaign starts at its send time, not at the next tick. */
  wakeAt: (campaign: CampaignDueSoon, dueInMs: number) => Promise<void>
  logger: DispatchLogger
  tuning: DispatchTuning
  clock: { nowMs(): number }
  /**
   * Where the completion check goes on from, kept by the caller between passes
   * (`createCompletionCursor`); without it every pass checks the first slice.
   */
  completion?: CompletionCursor
}

/** The completion check's place among the campaigns sending: the last id the previous slice checked. */
export interface CompletionCursor {
  after: string | null
}

export function createCompletionCursor(): CompletionCursor {
  return { after: null }
}

export interface DispatchPassOutcome {
  completed: number
  /** Messages created pending. */
  dispatched: number
  /** Messages created `suppressed`: unsubscribed or suppressed contacts. */
  excluded: number
}

interface DispatchTally {
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
export async function dispatchDueCampaigns(deps: DispatchDueCampaignsDeps): Promise<DispatchPassOutcome> {
  const { store, tuning, clock } = deps
  const cursor = deps.completion ?? createCompletionCursor()
  const slice = await store.completeFinished({ after: cursor.after, limit: tuning.completionSlice })
  // A pass that found the lock held leaves the place alone: another pass of this process may have
  // moved it meanwhile (the system worker runs three jobs at a time, all sharing the cursor).
  if (!slice.busy) cursor.after = slice.next
  const completed = slice.completed
  for (const campaign of completed) {
    deps.logger.info({ tenantId: campaign.tenantId, campaignId: campaign.id }, 'campaign sent')
  }

  const due = await store.findDispatchable({ limit: tuning.campaignsPerPass })
  // Side by side but one batch at a time, in turns: campaigns starting together progress together,
  // and dispatch (PostgreSQL's heaviest writes) never takes more than one database connection's
  // worth of CPU from the sends running meanwhile.
  const tally: DispatchTally = { dispatched: 0, excluded: 0 }
  const started = clock.nowMs()
  const sliceLeft = () => clock.nowMs() - started < tuning.sliceMs
  const taken = new Set(due.map((campaign) => campaign.id))
  const skipped = new Set<string>()
  let open = due
  while (open.length > 0 && sliceLeft()) {
    const next: DispatchTarget[] = []
    for (const campaign of open) {
      if (!sliceLeft()) break
      const turn = await dispatchTurn(deps, campaign, tally)
      if (turn === 'more') next.push(campaign)
      else if (turn === 'skipped') skipped.add(campaign.id)
    }
    open = next
    // A campaign done makes room for the next one due, while the slice lasts: ten thousand small
    // campaigns due together must not wait one pass (a second) per ten of them.
    if (open.length < tuning.campaignsPerPass && sliceLeft()) {
      open = open.concat(
        await moreDue(store, { taken, skipped, open, room: tuning.campaignsPerPass - open.length }),
      )
    }
  }

  const soon = await store.findDueSoon({ withinMs: tuning.lookaheadMs, limit: 100 })
  await Promise.all(soon.map((campaign) => deps.wakeAt(campaign, campaign.dueInMs)))

  return { completed: completed.length, ...tally }
}

/**
 * Due campaigns not taken in this pass yet, at most `room`. Those still listed as dispatchable are
 * the open ones and those another dispatcher holds (skipped): asking for that many more than `room`
 * reaches past them, so the read stays as small as the pass's own campaigns.
 */
async function moreDue(
  store: DispatchDueCampaignsDeps['store'],
  input: { taken: Set<string>; skipped: Set<string>; open: DispatchTarget[]; room: number },
): Promise<DispatchTarget[]> {
  const listed = await store.findDispatchable({ limit: input.open.length + input.skipped.size + input.room })
  const fresh = listed.filter((campaign) => !input.taken.has(campaign.id)).slice(0, input.room)
  for (const campaign of fresh) input.taken.add(campaign.id)
  return fresh
}

/** One batch of a campaign's dispatch: `more` while the campaign has more to dispatch. */
async function dispatchTurn(
  deps: DispatchDueCampaignsDeps,
  campaign: DispatchTarget,
  tally: DispatchTally,
): Promise<'more' | 'done' | 'skipped'> {
  const batch = await deps.store.dispatchBatch({ campaignId: campaign.id, batchSize: deps.tuning.batchSize })
  if (batch.kind === 'skipped') return 'skipped'
  tally.dispatched += batch.inserted - batch.excluded
  tally.excluded += batch.excluded
  if (batch.inserted > batch.excluded) deps.onPending()
  if (!batch.done) return 'more'
  deps.logger.info(
    { tenantId: campaign.tenantId, campaignId: campaign.id },
    batch.endedEmpty
      ? 'campaign ended: its audience was empty at send time; nothing to send'
      : 'campaign dispatched; sending',
  )
  return 'done'
}
