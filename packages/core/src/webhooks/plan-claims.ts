/**
 * Which due deliveries one relay pass claims, fairly: tenants take turns one delivery at a time
 * (round robin, starting after the tenant the last pass ended on), and within a tenant its
 * endpoints take turns, each up to its free in-flight slots. So a tenant with one endpoint and a
 * backlog of thousands gets the same share of a pass as a tenant with one event, and a tenant's
 * busy endpoint cannot starve its other endpoints. A tenant takes at most its free tenant slots
 * (`tenantSlots`): however many endpoints it has, it never holds more of the lane than its cap.
 */
export interface ReadyEndpoint {
  endpointId: string
  tenantId: string
  /** Attempts it may start now: its concurrency cap less those in flight (1 for a probe after a park). */
  free: number
}

export interface ClaimPlan {
  /** Deliveries to claim per endpoint. */
  perEndpoint: Map<string, number>
  perTenant: Map<string, number>
  /** The tenant the next pass starts after. */
  lastTenant: string | undefined
}

export function planWebhookClaims(input: {
  endpoints: readonly ReadyEndpoint[]
  batchSize: number
  /** The tenant the previous pass ended on: this pass starts with the one after it. */
  after?: string
  /** Tokens each tenant may spend (its bucket's grant); absent: no limit. */
  budgets?: ReadonlyMap<string, number>
  /** Attempts each tenant may start now: its in-flight cap less its attempts in flight; absent: no limit. */
  tenantSlots?: ReadonlyMap<string, number>
}): ClaimPlan {
  const byTenant = new Map<string, ReadyEndpoint[]>()
  for (const endpoint of input.endpoints) {
    if (endpoint.free <= 0) continue
    const list = byTenant.get(endpoint.tenantId) ?? []
    list.push(endpoint)
    byTenant.set(endpoint.tenantId, list)
  }
  const tenants = rotate([...byTenant.keys()].sort(), input.after)
  const perEndpoint = new Map<string, number>()
  const perTenant = new Map<string, number>()
  const turn = new Map<string, number>()
  let total = 0
  let lastTenant: string | undefined
  let progressed = true
  while (total < input.batchSize && progressed) {
    progressed = false
    for (const tenantId of tenants) {
      if (total >= input.batchSize) break
      const taken = perTenant.get(tenantId) ?? 0
      if (taken >= limitOf(tenantId, input)) continue
      const endpoint = nextWithRoom(byTenant.get(tenantId) ?? [], perEndpoint, turn, tenantId)
      if (!endpoint) continue
      perEndpoint.set(endpoint.endpointId, (perEndpoint.get(endpoint.endpointId) ?? 0) + 1)
      perTenant.set(tenantId, taken + 1)
      total += 1
      lastTenant = tenantId
      progressed = true
    }
  }
  return { perEndpoint, perTenant, lastTenant }
}

/** What the tenant may take in this plan: the lower of its token budget and its free slots. */
function limitOf(
  tenantId: string,
  input: { budgets?: ReadonlyMap<string, number>; tenantSlots?: ReadonlyMap<string, number> },
): number {
  return Math.min(
    input.budgets?.get(tenantId) ?? Number.POSITIVE_INFINITY,
    input.tenantSlots?.get(tenantId) ?? Number.POSITIVE_INFINITY,
  )
}

/** The tenant's next endpoint (in turn) that still has a free slot in this plan. */
function nextWithRoom(
  endpoints: readonly ReadyEndpoint[],
  planned: ReadonlyMap<string, number>,
  turn: Map<string, number>,
  tenantId: string,
): ReadyEndpoint | undefined {
  const start = turn.get(tenantId) ?? 0
  for (let step = 0; step < endpoints.length; step++) {
    const index = (start + step) % endpoints.length
    const endpoint = endpoints[index] as ReadyEndpoint
    if ((planned.get(endpoint.endpointId) ?? 0) < endpoint.free) {
      turn.set(tenantId, index + 1)
      return endpoint
    }
  }
  return undefined
}

function rotate(sorted: string[], after: string | undefined): string[] {
  if (after === undefined) return sorted
  const index = sorted.findIndex((tenantId) => tenantId > after)
  return index <= 0 ? sorted : [...sorted.slice(index), ...sorted.slice(0, index)]
}
