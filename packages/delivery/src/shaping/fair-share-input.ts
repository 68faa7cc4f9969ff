/**
 * What one tick of the fair scheduler works on: the input types, and the input read into the
 * per-tick structures the turns run over, checked on the way (bad input is an error naming the
 * tenant, provider or pair). Only fair-share.ts uses the structures.
 */

export interface ShareProvider {
  provider: string
  /** Whole messages the provider may take this tick from the address; 0 while it is paused. */
  budget: number
  /** Part of `budget` held for the critical lane: the tenants here share `budget − reserved`. */
  reserved?: number
}

export interface ShareTenant {
  tenantId: string
  /** Share of each provider's budget relative to the other tenants with mail for it; an integer ≥ 1. */
  weight: number
  /** Whole messages the tenant's own plan lets it send this tick, at all providers together. */
  allowance: number
}

export interface ShareBacklog {
  tenantId: string
  provider: string
  /**
   * Messages of the tenant waiting for the provider (perhaps capped by the query), at least 0. To
   * slow one tenant at a provider (a throttle naming its DKIM domain), cap this at that tenant's
   * own budget there: the others then share the rest, since a turn ends when the backlog does.
   */
  backlog: number
}

/** One released message: whose, and for which provider. Entries for one pair are the same object. */
export interface ShareSlot {
  readonly tenantId: string
  readonly provider: string
}

export interface ShareRelease {
  tenantId: string
  provider: string
  count: number
}

/** What the scheduler remembers of a provider between ticks. */
export interface ProviderMemory {
  /** A tenant whose turn the budget cut short, and the deficit it still had: it goes first next time. */
  resume: { tenantId: string; deficit: number } | null
  /** Otherwise the next tick starts with the tenant after this one. */
  lastServedTenantId: string | null
  seenAtMs: number
}

export interface TenantTurnState {
  tenantId: string
  weight: number
  allowanceLeft: number
  contenders: Contender[]
}

/** A (tenant, provider) with mail and a chance this tick. */
export interface Contender {
  tenant: TenantTurnState
  provider: ProviderRound
  backlogLeft: number
  deficit: number
  /** Made at the first release, so the many pairs that release nothing this tick cost no more objects. */
  slot: ShareSlot | null
  release: ShareRelease | null
}

export interface ProviderRound {
  provider: string
  memory: ProviderMemory
  remaining: number
  queue: Contender[]
  head: number
  /** The tenant resuming a cut turn: its first turn this tick adds no weight. */
  resumingTenantId: string | null
  /** The tenant whose backlog entries were read last, to catch a pair listed twice. */
  listedBy: TenantTurnState | null
}

export function readProviders(
  remembered: Map<string, ProviderMemory>,
  providers: ShareProvider[],
  nowMs: number,
): Map<string, ProviderRound> {
  const rounds = new Map<string, ProviderRound>()
  for (const provider of providers) {
    assertProvider(provider)
    if (rounds.has(provider.provider)) throw new RangeError(`provider ${provider.provider} is listed twice`)
    let memory = remembered.get(provider.provider)
    if (!memory) {
      memory = { resume: null, lastServedTenantId: null, seenAtMs: nowMs }
      remembered.set(provider.provider, memory)
    }
    memory.seenAtMs = nowMs
    const remaining = Math.max(0, Math.floor(provider.budget) - Math.ceil(provider.reserved ?? 0))
    rounds.set(provider.provider, {
      provider: provider.provider,
      memory,
      remaining,
      queue: [],
      head: 0,
      resumingTenantId: null,
      listedBy: null,
    })
  }
  return rounds
}

export function readTenants(tenants: ShareTenant[]): Map<string, TenantTurnState> {
  const byId = new Map<string, TenantTurnState>()
  for (const tenant of tenants) {
    assertTenant(tenant)
    if (byId.has(tenant.tenantId)) throw new RangeError(`tenant ${tenant.tenantId} is listed twice`)
    byId.set(tenant.tenantId, {
      tenantId: tenant.tenantId,
      weight: tenant.weight,
      allowanceLeft: Math.floor(tenant.allowance),
      contenders: [],
    })
  }
  return byId
}

/** Attaches each backlog entry to its tenant; those that cannot be served this tick sit it out. */
export function readBacklogs(
  backlogs: ShareBacklog[],
  tenants: Map<string, TenantTurnState>,
  rounds: Map<string, ProviderRound>,
): void {
  for (const entry of backlogs) {
    const tenant = tenants.get(entry.tenantId)
    const round = rounds.get(entry.provider)
    if (!tenant) throw new RangeError(`backlog for ${pairName(entry)}: the tenant is not listed`)
    if (!round) throw new RangeError(`backlog for ${pairName(entry)}: the provider is not listed`)
    if (!(Number.isFinite(entry.backlog) && entry.backlog >= 0)) {
      throw new RangeError(`backlog for ${pairName(entry)} must be a finite number ≥ 0, got ${entry.backlog}`)
    }
    tenant.contenders.push({
      tenant,
      provider: round,
      backlogLeft: Math.floor(entry.backlog),
      deficit: 0,
      slot: null,
      release: null,
    })
  }
}

function pairName(entry: ShareBacklog): string {
  return `tenant ${entry.tenantId} at provider ${entry.provider}`
}

function assertProvider(provider: ShareProvider): void {
  if (!(provider.budget >= 0)) {
    throw new RangeError(`provider ${provider.provider}: budget must be ≥ 0, got ${provider.budget}`)
  }
  if (provider.reserved !== undefined && !(provider.reserved >= 0)) {
    throw new RangeError(`provider ${provider.provider}: reserved must be ≥ 0, got ${provider.reserved}`)
  }
}

function assertTenant(tenant: ShareTenant): void {
  if (!(Number.isInteger(tenant.weight) && tenant.weight >= 1)) {
    throw new RangeError(`tenant ${tenant.tenantId}: weight must be an integer ≥ 1, got ${tenant.weight}`)
  }
  if (!(tenant.allowance >= 0)) {
    throw new RangeError(`tenant ${tenant.tenantId}: allowance must be ≥ 0, got ${tenant.allowance}`)
  }
}
