import { enqueueOrGiveBack, freeCapacity } from './lane-release'
import type { BulkLane, DepthTarget, PacingLogger } from './ports'
import { inProviderBatches } from './receiver-batches'
import type {
  PendingBulkRow,
  PendingCursor,
  ProviderLookup,
  ReceiverBacklog,
  ReceiverBacklogStore,
  ReceiverPlanner,
  ReceiverSlot,
} from './receiver-ports'

/**
 * The bulk pacer in MX mode. Mail waits in PostgreSQL (rows stay `pending`); each tick the leader
 * releases, per provider, what that provider's budget allows, shared inside it between the tenants
 * with mail for it by weight (`ReceiverPlanner`). To know which provider a pending row is for, the
 * leader keeps a *stage* per tenant: an index of its oldest pending rows with their recipient
 * domain, read in creation order in pages, with a cursor. Rows for a paused provider sit in the
 * stage while the same tenant's rows for other providers go out: no head-of-line blocking —
 * within the stage's bound.
 *
 * What the bound costs: a tenant with more than `stageLimit` rows for a paused provider, all older
 * than its rows for others, fills its stage with them, and its later rows for other providers are
 * not seen until the stage drains (the provider resumes) or the stage is read afresh. Memory stays
 * at `stageLimit` rows per tenant with backlog however large the backlogs are.
 */
export interface ReleaseByReceiverDeps {
  store: ReceiverBacklogStore
  /** `enqueueBatches` is needed when `batchSize` is over 1. */
  lane: Pick<BulkLane, 'depth' | 'enqueue'> & Partial<Pick<BulkLane, 'enqueueBatches'>>
  /**
   * BULK_BATCH_SIZE: each (tenant, provider) pair's released rows go out in jobs of at most this
   * many (`inProviderBatches`); 1 or absent: one job per message.
   */
  batchSize?: number
  providers: ProviderLookup
  /** A provider's rate now, messages a minute, less the critical lane's reserve; 0 while paused. */
  ratePerMinute(provider: string): Promise<number> | number
  /**
   * A tenant's own rate at a provider, when that provider throttled the tenant's domain alone
   * (messages a minute; 0 while paused); undefined for a tenant it did not single out.
   */
  tenantRatePerMinute?(tenantId: string, provider: string): Promise<number | undefined> | number | undefined
  /**
   * Each backlogged tenant's share of a provider while other tenants' mail (sent at once, not paced
   * here) wants it too, messages a minute; a tenant without an entry has the provider to itself.
   * Asking also tells the others' gate that these tenants have mail waiting.
   */
  tenantSharesPerMinute?(
    provider: string,
    tenants: readonly { tenantId: string; weight: number }[],
  ): Promise<Map<string, number>>
  planner: ReceiverPlanner
  /** Jobs the lane may hold at most. */
  highWater: number
  depthTarget?: DepthTarget
  clock: { now(): Date }
  logger: PacingLogger
}

export interface ReceiverStageOptions {
  /** Rows staged per tenant at most. */
  stageLimit: number
  /** Rows read per page. */
  pageSize: number
  /** Domains being resolved at once, over all tenants. */
  resolveConcurrency: number
  /** A domain whose lookup failed for now is asked again after this long. */
  resolveRetryMs: number
  /** A tenant whose paging caught up is read again after this long (new rows arrive behind the cursor). */
  rereadMs: number
  /**
   * A stage is read afresh from the tenant's oldest row after this long: a row committed late with
   * an older `created_at` than the cursor is otherwise never seen while the stage stays non-empty.
   */
  restageMs: number
}

export const RECEIVER_STAGE_DEFAULTS: ReceiverStageOptions = {
  stageLimit: 2_000,
  pageSize: 500,
  resolveConcurrency: 8,
  resolveRetryMs: 5_000,
  rereadMs: 1_000,
  restageMs: 30_000,
}

interface TenantStage {
  rows: PendingBulkRow[]
  cursor: PendingCursor | null
  /** When the last page came back short: nothing more to read until `rereadMs` later. */
  caughtUpAtMs: number | null
  stagedAtMs: number
}

/** The leader's memory between ticks: the stages and the domains' providers. */
export interface ReceiverStage {
  readonly options: ReceiverStageOptions
  readonly tenants: Map<string, TenantStage>
  /** Providers of the domains staged; dropped with the last staged row of the domain. */
  readonly providerOf: Map<string, string>
  readonly resolving: Set<string>
  readonly failedAtMs: Map<string, number>
}

export function createReceiverStage(options: Partial<ReceiverStageOptions> = {}): ReceiverStage {
  const merged = { ...RECEIVER_STAGE_DEFAULTS, ...options }
  for (const [name, value] of Object.entries(merged)) {
    if (!(Number.isFinite(value) && value > 0))
      throw new RangeError(`${name} must be a number > 0, got ${value}`)
  }
  return {
    options: merged,
    tenants: new Map(),
    providerOf: new Map(),
    resolving: new Set(),
    failedAtMs: new Map(),
  }
}

export interface ReleaseByReceiverOutcome {
  kind: 'released' | 'full' | 'idle'
  released: number
  backlog: { tenants: number; rows: number } | null
  /** Staged rows whose domain has no provider yet (being resolved, or DNS failing for now). */
  unresolved: number
}

/**
 * One tick: free slots = depth target − the lane's depth; the stages are topped up; domains not
 * yet known are resolved in the background, a few at a time (their rows wait); the planner shares
 * the providers' budgets between the tenants; exactly the staged rows picked are claimed (committed)
 * and their jobs added in plan order (with `batchSize`, in batches per tenant and provider). No queue call runs inside a database transaction. Rows the
 * claim did not return (sent, cancelled, taken) leave the stage, and the planner is told.
 */
export async function releaseByReceiver(
  stage: ReceiverStage,
  deps: ReleaseByReceiverDeps,
): Promise<ReleaseByReceiverOutcome> {
  const nowMs = () => deps.clock.now().getTime()
  const capacity = await freeCapacity(deps, nowMs())
  if (capacity === 0) return { kind: 'full', released: 0, backlog: null, unresolved: 0 }

  const found = await deps.store.findBacklog({ cap: capacity + 1 })
  const backlog = { tenants: found.length, rows: found.reduce((sum, tenant) => sum + tenant.backlog, 0) }
  const waiting = new Set(found.map((tenant) => tenant.tenantId))
  for (const tenantId of stage.tenants.keys()) if (!waiting.has(tenantId)) stage.tenants.delete(tenantId)
  if (found.length === 0) {
    stage.providerOf.clear()
    return { kind: 'idle', released: 0, backlog, unresolved: 0 }
  }
  for (const tenant of found) await topUp(stage, deps.store, tenant.tenantId, nowMs())
  const unresolved = resolveDomains(stage, deps, nowMs())

  const backlogs = stagedBacklogs(stage)
  const providers = [...new Set(backlogs.map((entry) => entry.provider))]
  const rates = new Map<string, number>()
  for (const provider of providers) rates.set(provider, await deps.ratePerMinute(provider))
  const pairRates = new Map<string, number>()
  if (deps.tenantRatePerMinute) {
    for (const { tenantId, provider } of backlogs) {
      const rate = await deps.tenantRatePerMinute(tenantId, provider)
      if (rate !== undefined) pairRates.set(`${tenantId}\u0000${provider}`, rate)
    }
  }
  if (deps.tenantSharesPerMinute) {
    const weights = new Map(found.map((tenant) => [tenant.tenantId, tenant.weight]))
    for (const provider of providers) {
      const tenants = backlogs
        .filter((entry) => entry.provider === provider)
        .map(({ tenantId }) => ({ tenantId, weight: weights.get(tenantId) ?? 1 }))
      const shares = await deps.tenantSharesPerMinute(provider, tenants)
      // The lower of the two where a provider singled the tenant out as well.
      for (const [tenantId, share] of shares) {
        const key = `${tenantId}\u0000${provider}`
        pairRates.set(key, Math.min(share, pairRates.get(key) ?? share))
      }
    }
  }
  const plan = deps.planner.plan({ tenants: found, backlogs, rates, pairRates, capacity, nowMs: nowMs() })
  const order = plan.order.slice(0, capacity)
  if (order.length === 0) {
    deps.planner.commit({ pairs: [], nowMs: nowMs() })
    return { kind: 'full', released: 0, backlog, unresolved }
  }

  const picked = pickRows(stage, order)
  const released = await deps.store.claimByIds(picked.map((entry) => entry.row))
  const releasedIds = new Set(released.map((row) => row.messageId))
  const byId = new Map(released.map((row) => [row.messageId, row]))
  const jobs = picked.flatMap((entry) => {
    const message = byId.get(entry.row.messageId)
    return message ? [{ message, provider: entry.provider }] : []
  })
  const batchSize = deps.batchSize ?? 1
  await enqueueOrGiveBack(
    deps,
    batchSize > 1 ? { batches: inProviderBatches(jobs, batchSize) } : jobs.map((job) => job.message),
    released,
  )
  // Every picked row leaves the stage: released, or gone from pending (another claimer, a cancel).
  // A row merely locked for a moment is read again when the stage is next read afresh.
  unstage(stage, new Set(picked.map((entry) => entry.row.messageId)))
  deps.planner.commit({ pairs: pairCounts(picked, releasedIds), nowMs: nowMs() })
  deps.depthTarget?.record(nowMs(), released.length)
  return { kind: released.length > 0 ? 'released' : 'idle', released: released.length, backlog, unresolved }
}

/** Reads the tenant's next page when its stage has room and it has not just caught up. */
async function topUp(stage: ReceiverStage, store: ReceiverBacklogStore, tenantId: string, nowMs: number) {
  const { stageLimit, pageSize, rereadMs, restageMs } = stage.options
  let tenant = stage.tenants.get(tenantId)
  if (!tenant || tenant.rows.length === 0 || nowMs - tenant.stagedAtMs >= restageMs) {
    tenant = { rows: [], cursor: null, caughtUpAtMs: null, stagedAtMs: nowMs }
    stage.tenants.set(tenantId, tenant)
  }
  const room = stageLimit - tenant.rows.length
  if (room <= 0) return
  if (tenant.caughtUpAtMs !== null && nowMs - tenant.caughtUpAtMs < rereadMs) return
  const limit = Math.min(pageSize, room)
  const page = await store.pagePending({ tenantId, after: tenant.cursor, limit })
  tenant.rows.push(...page)
  const last = page.at(-1)
  if (last) tenant.cursor = { createdAt: last.createdAt, messageId: last.messageId }
  tenant.caughtUpAtMs = page.length < limit ? nowMs : null
}

/**
 * Starts lookups for staged domains with no provider yet, up to the concurrency, not awaited: the
 * answer joins at a later tick. A domain whose lookup failed waits `resolveRetryMs`. Also forgets
 * the providers of domains no longer staged. Answers how many staged rows have no provider.
 */
function resolveDomains(stage: ReceiverStage, deps: ReleaseByReceiverDeps, nowMs: number): number {
  const staged = new Map<string, number>()
  for (const tenant of stage.tenants.values()) {
    for (const row of tenant.rows) staged.set(row.domain, (staged.get(row.domain) ?? 0) + 1)
  }
  for (const domain of stage.providerOf.keys()) if (!staged.has(domain)) stage.providerOf.delete(domain)
  for (const domain of stage.failedAtMs.keys()) if (!staged.has(domain)) stage.failedAtMs.delete(domain)
  let unresolved = 0
  for (const [domain, rows] of staged) {
    if (stage.providerOf.has(domain)) continue
    unresolved += rows
    if (stage.resolving.has(domain) || stage.resolving.size >= stage.options.resolveConcurrency) continue
    const failedAt = stage.failedAtMs.get(domain)
    if (failedAt !== undefined && nowMs - failedAt < stage.options.resolveRetryMs) continue
    stage.resolving.add(domain)
    deps.providers.resolve(domain).then(
      (provider) => {
        stage.resolving.delete(domain)
        if (provider === null) stage.failedAtMs.set(domain, deps.clock.now().getTime())
        else {
          stage.failedAtMs.delete(domain)
          stage.providerOf.set(domain, provider)
        }
      },
      (error: unknown) => {
        stage.resolving.delete(domain)
        stage.failedAtMs.set(domain, deps.clock.now().getTime())
        deps.logger.warn({ err: (error as Error).message, domain }, 'provider lookup failed; its rows wait')
      },
    )
  }
  return unresolved
}

function stagedBacklogs(stage: ReceiverStage): ReceiverBacklog[] {
  const backlogs: ReceiverBacklog[] = []
  for (const [tenantId, tenant] of stage.tenants) {
    const counts = new Map<string, number>()
    for (const row of tenant.rows) {
      const provider = stage.providerOf.get(row.domain)
      if (provider !== undefined) counts.set(provider, (counts.get(provider) ?? 0) + 1)
    }
    for (const [provider, backlog] of counts) backlogs.push({ tenantId, provider, backlog })
  }
  return backlogs
}

interface PickedRow {
  row: PendingBulkRow
  provider: string
}

/** For each slot, the tenant's oldest staged row for that provider not yet picked, in slot order. */
function pickRows(stage: ReceiverStage, order: readonly ReceiverSlot[]): PickedRow[] {
  const queues = new Map<string, PendingBulkRow[]>()
  const wanted = new Set(order.map((slot) => slot.tenantId))
  for (const tenantId of wanted) {
    for (const row of stage.tenants.get(tenantId)?.rows ?? []) {
      const provider = stage.providerOf.get(row.domain)
      if (provider === undefined) continue
      const key = pairKey(tenantId, provider)
      const queue = queues.get(key)
      if (queue) queue.push(row)
      else queues.set(key, [row])
    }
  }
  const picked: PickedRow[] = []
  const taken = new Map<string, number>()
  for (const slot of order) {
    const key = pairKey(slot.tenantId, slot.provider)
    const at = taken.get(key) ?? 0
    const row = queues.get(key)?.[at]
    if (!row) throw new RangeError(`the plan released more for ${key} than its staged rows`)
    taken.set(key, at + 1)
    picked.push({ row, provider: slot.provider })
  }
  return picked
}

function unstage(stage: ReceiverStage, ids: Set<string>): void {
  for (const tenant of stage.tenants.values()) {
    if (tenant.rows.some((row) => ids.has(row.messageId))) {
      tenant.rows = tenant.rows.filter((row) => !ids.has(row.messageId))
    }
  }
}

function pairCounts(picked: readonly PickedRow[], releasedIds: Set<string>) {
  const pairs = new Map<string, { tenantId: string; provider: string; planned: number; released: number }>()
  for (const { row, provider } of picked) {
    const key = pairKey(row.tenantId, provider)
    const pair = pairs.get(key) ?? { tenantId: row.tenantId, provider, planned: 0, released: 0 }
    pair.planned += 1
    if (releasedIds.has(row.messageId)) pair.released += 1
    pairs.set(key, pair)
  }
  return [...pairs.values()]
}

function pairKey(tenantId: string, provider: string): string {
  return `${tenantId}\u0000${provider}`
}
