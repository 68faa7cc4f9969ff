import { createHash } from 'node:crypto'
import type { Mailer, ReceiverGate } from '@fairlane/core/delivery'
import type { Database } from '@fairlane/db'
import { createReceiverStateStore, listReceiverStates } from '@fairlane/db/queries/receiver-states'
import { findEgressPools, findTenantWeights } from '@fairlane/db/queries/tenants'
import { createMxTransport, type MxTlsPolicy, type MxTransport } from '@fairlane/delivery/mx/mx-transport'
import { isPrivateAddress } from '@fairlane/delivery/mx/private-address'
import { readMxReply } from '@fairlane/delivery/mx/read-reply'
import { createMxResolver, type MxAnswer, type MxResolver } from '@fairlane/delivery/mx/resolve'
import {
  createReceiverGate,
  type ProviderDemand,
  type ProviderOf,
  type RateController,
  shareWanting,
  type WarmupCheck,
} from '@fairlane/delivery/receiver-gate'
import { providerOf } from '@fairlane/delivery/receivers/rollup'
import type { ReceiverRules } from '@fairlane/delivery/receivers/rules'
import type { ReplyClass } from '@fairlane/delivery/replies/classify'
import { DEFAULT_BACKOFF_OPTIONS, type RateState } from '@fairlane/delivery/shaping/aimd'
import { aimdRateController } from '@fairlane/delivery/shaping/rate-controller'
import type { ReceiverCounters, TokenBuckets } from '@fairlane/fairness'
import { createMxMailer } from '../lanes/mx-mailer'
import { tidyReply } from '../lanes/redact'
import type { SlotMailerOptions } from '../lanes/smtp-mailer'
import { withReceiverCounts } from './receiver-counting'

/** `DELIVERY_MODE=mx`: how mail reaches the recipients' own MX hosts, read from the configuration. */
export interface ReceiverOptions {
  /** RECEIVER_RULES (or the repository's defaults): providers, their limits, the back-off. */
  rules: ReceiverRules
  /** DNS_SERVERS; unset: the system's resolvers. */
  dnsServers?: string[] | undefined
  /** MX_PORT */
  port: number
  /** SMTP_HELO_NAME */
  heloName: string
  /** MX_TLS */
  tls: MxTlsPolicy
  /** MX_ALLOW_PRIVATE */
  allowPrivate: boolean
  /** EGRESS_ADDRESSES: empty lets the system pick the source address. */
  egressAddresses: string[]
  /** EGRESS_POOLS: dedicated addresses a tenant may be pinned to (`tenants.egress_pool`). */
  egressPools?: Record<string, string[]>
  /** DELIVERY_MAX_AGE_HOURS, in ms. */
  maxAgeMs: number
  /** SMTP_TIMEOUT_MS: each phase of an MX session (connect, greeting, every reply). */
  timeoutMs: number
  /**
   * False: MX delivery without the providers' budgets, each message retried on its own timer (the
   * lane's retry schedule) as a plain MTA does; the receivers bench's baseline. Default true.
   */
  shaping?: boolean
  /** Every reply's class per provider: `fairlane_receiver_replies_total` (`registerReceiverMetrics`). */
  observe?: (input: { provider: string; egress: string; replyClass: ReplyClass['kind'] }) => void
}

export interface Receivers {
  /** Absent when shaping is off (the baseline). */
  gate?: ReceiverGate
  /** For the bulk pacer in MX mode: a domain's provider (null while DNS fails for now). */
  providers: { resolve(domain: string): Promise<string | null> }
  /**
   * For the bulk pacer: a provider's rate now over the shared egress addresses, messages a minute,
   * less the critical lane's reserve; 0 while paused. States read at most once a second.
   */
  ratePerMinute(provider: string): Promise<number>
  /** For the bulk pacer: a tenant's own rate at a provider that throttled its domain alone. */
  tenantRatePerMinute(tenantId: string, provider: string): Promise<number | undefined>
  /**
   * For the bulk pacer: the tenants it holds a backlog for at a provider, noted as waiting there, and
   * each one's share of the provider's rate at its egress address while other tenants (the API's
   * mail, at send time) want it too. A tenant with the provider to itself is not in the answer.
   */
  tenantSharesPerMinute?(
    provider: string,
    tenants: readonly { tenantId: string; weight: number }[],
  ): Promise<Map<string, number>>
  mailer(options: SlotMailerOptions): Mailer
  maxAgeMs: number
  /** Drops the pacer's cached provider states: the gate just wrote a new one (`providerStateChanged`). */
  forgetRates(): void
  close(): void
}

/**
 * MX mode's parts for the lanes: the resolver (with its cache), the transport (pools per egress
 * address and MX host) and the receiver gate (providers' budgets in Redis buckets, their states in
 * PostgreSQL). One set per worker process, shared by its lanes.
 */
export function startReceivers(
  options: ReceiverOptions,
  deps: {
    db: Database
    buckets: Pick<TokenBuckets, 'take' | 'takeUpTo'>
    /** The warming addresses' daily caps (`warmup.ts`). */
    warmup?: WarmupCheck
    /** The console's counts (attempts, throttles, deferrals, tenants' shares) in Redis. */
    counters?: Pick<ReceiverCounters, 'record'>
    /**
     * Tenants' demand per provider and egress address in Redis (`createReceiverDemand`): each tenant
     * held to its weighted share of a provider while others want it. Without it, first come first served.
     */
    demand?: ProviderDemand
    onCountError?: (error: unknown) => void
  },
): Receivers {
  const { rules } = options
  const resolver = createMxResolver(options.dnsServers ? { servers: options.dnsServers } : {})
  // Each shaped send names its provider's own limits (the gate's route); these bound the rest (the
  // baseline without shaping): the most connections and the fewest messages any provider allows.
  const connections = Math.max(
    rules.default.limits.connections,
    ...rules.providers.map((rule) => rule.limits.connections),
  )
  const transport: MxTransport = createMxTransport({
    resolver,
    isPrivate: isPrivateAddress,
    allowPrivate: options.allowPrivate,
    port: options.port,
    heloName: options.heloName,
    tls: options.tls,
    connectionsPerHost: connections,
    messagesPerConnection: Math.min(
      rules.default.limits.messagesPerConnection,
      ...rules.providers.map((rule) => rule.limits.messagesPerConnection),
    ),
    timeouts: { connectionMs: options.timeoutMs, greetingMs: options.timeoutMs, socketMs: options.timeoutMs },
  })
  // One controller, the rules' back-off: the gate and the pacer's rates read states alike.
  const controller = aimdRateController({ ...DEFAULT_BACKOFF_OPTIONS, ...rules.backoff })
  const egressFor = egressChooser({
    shared: options.egressAddresses,
    pools: options.egressPools ?? {},
    poolOf: poolCache((tenantIds) => findEgressPools(deps.db, tenantIds)),
  })
  const weightOf = poolCache((tenantIds) => findTenantWeights(deps.db, tenantIds))
  const shaping = createReceiverGate({
    providerOf: providerLookup(resolver, rules),
    egressFor,
    states: createReceiverStateStore(deps.db),
    controller,
    buckets: deps.buckets,
    readReply: (error) => readMxReply(error, tidyReply),
    criticalReserve: rules.criticalReserve,
    clock: { now: () => Date.now() },
    ...(options.observe ? { observe: options.observe } : {}),
    ...(deps.warmup ? { warmup: deps.warmup } : {}),
    ...(deps.demand
      ? { demand: deps.demand, weightOf: async (tenantId) => (await weightOf(tenantId)) ?? 1 }
      : {}),
  })
  const rates = providerRates({
    list: () => listReceiverStates(deps.db),
    rules,
    controller,
    egressAddresses: options.egressAddresses,
  })
  const gate = deps.counters
    ? withReceiverCounts(shaping, {
        counters: deps.counters,
        ...(deps.onCountError ? { onError: deps.onCountError } : {}),
      })
    : shaping
  return {
    ...(options.shaping === false ? {} : { gate }),
    providers: {
      async resolve(domain) {
        const answer = await resolver.resolve(domain)
        return answer.kind === 'temporary' ? null : providerFromAnswer(answer, domain, rules).provider
      },
    },
    ...rates,
    ...(deps.demand && options.shaping !== false
      ? {
          tenantSharesPerMinute: tenantShares({
            demand: deps.demand,
            egressFor,
            rateAt: rates.ratePerMinuteAt,
          }),
        }
      : {}),
    mailer: (mailerOptions) => createMxMailer(transport, mailerOptions),
    maxAgeMs: options.maxAgeMs,
    forgetRates: () => rates.forget(),
    close: () => transport.close(),
  }
}

/**
 * A domain's provider by its MX hosts (rolled up by the rules). A domain whose lookup failed or has
 * no usable MX is its own provider: the transport, looking it up again (cached), fails or defers
 * the message with the reason.
 */
export function providerLookup(resolver: MxResolver, rules: ReceiverRules): ProviderOf {
  return async (domain) => providerFromAnswer(await resolver.resolve(domain), domain, rules)
}

function providerFromAnswer(answer: MxAnswer, domain: string, rules: ReceiverRules) {
  const mxHosts = answer.kind === 'hosts' ? answer.hosts.map((host) => host.host) : []
  try {
    return providerOf({ domain: answer.domain, mxHosts }, rules)
  } catch {
    // Not a domain at all (the transport refuses it, naming it): no budget of anyone else's to share.
    return { provider: domain.replace(/[^a-z0-9.-]/g, '_') || 'unknown', limits: rules.default.limits }
  }
}

/**
 * The egress address of a tenant's mail to a provider: from the tenant's dedicated pool when the
 * platform admin pinned it to one (EGRESS_POOLS), else from the shared addresses; the same address
 * each time (a provider learns an address's reputation from its traffic), spread over the pool by
 * tenant and provider. A pin to a pool no longer configured falls back to the shared addresses.
 */
export function egressChooser(input: {
  shared: readonly string[]
  pools: Readonly<Record<string, readonly string[]>>
  poolOf: (tenantId: string) => Promise<string | undefined>
}): (ask: { tenantId: string; provider: string }) => Promise<string> {
  const pinning = Object.keys(input.pools).length > 0
  return async ({ tenantId, provider }) => {
    const pool = pinning ? await input.poolOf(tenantId) : undefined
    const addresses = (pool === undefined ? undefined : input.pools[pool]) ?? input.shared
    if (addresses.length === 0) return ''
    const digest = createHash('sha256').update(`${tenantId}\u0000${provider}`).digest()
    return addresses[digest.readUInt32BE(0) % addresses.length] ?? ''
  }
}

/** Tenants' pins, read again after `ttlMs`: an admin's change is obeyed within it. */
export function poolCache<Value = string>(
  load: (tenantIds: string[]) => Promise<Map<string, Value>>,
  options: { ttlMs?: number; now?: () => number } = {},
): (tenantId: string) => Promise<Value | undefined> {
  const ttlMs = options.ttlMs ?? 5_000
  const now = options.now ?? Date.now
  const cached = new Map<string, { pool: Value | undefined; readAtMs: number }>()
  return async (tenantId) => {
    const hit = cached.get(tenantId)
    if (hit && now() - hit.readAtMs < ttlMs) return hit.pool
    const pool = (await load([tenantId])).get(tenantId)
    cached.set(tenantId, { pool, readAtMs: now() })
    if (cached.size > 100_000) cached.delete(cached.keys().next().value as string)
    return pool
  }
}

/**
 * A provider's rate now for the pacer: the controller's allowed rate at each shared egress address
 * (its ceiling where it never throttled), summed, less the critical lane's reserve; and a tenant's
 * own rate there when the provider throttled that tenant's domain alone (its state where it has one,
 * the provider's elsewhere). Dedicated pools are sent from at send time; the pacer budgets the
 * shared addresses only. The states are read at most once a `cacheMs`.
 */
export function providerRates(input: {
  list: () => Promise<{ egress: string; provider: string; scope: string; state: unknown }[]>
  rules: ReceiverRules
  controller: RateController<RateState>
  egressAddresses: readonly string[]
  cacheMs?: number
  now?: () => number
}): {
  ratePerMinute(provider: string): Promise<number>
  tenantRatePerMinute(tenantId: string, provider: string): Promise<number | undefined>
  /** The rate at one egress address, less the critical lane's reserve (what its shared bucket allows). */
  ratePerMinuteAt(provider: string, egress: string): Promise<number>
  /** The next question reads the states afresh. */
  forget(): void
} {
  const cacheMs = input.cacheMs ?? 1_000
  const now = input.now ?? Date.now
  const key = (provider: string, egress: string, scope: string) => `${provider}\u0000${egress}\u0000${scope}`
  let read:
    | { atMs: number; states: Promise<{ byKey: Map<string, RateState>; singled: Set<string> }> }
    | undefined
  const states = () => {
    if (!read || now() - read.atMs >= cacheMs) {
      const entry = {
        atMs: now(),
        states: input.list().then((rows) => {
          const byKey = new Map<string, RateState>()
          const singled = new Set<string>()
          for (const row of rows) {
            byKey.set(key(row.provider, row.egress, row.scope), input.controller.parse(row.state))
            if (row.scope !== '') singled.add(`${row.provider}\u0000${row.scope}`)
          }
          return { byKey, singled }
        }),
      }
      entry.states.catch(() => {
        if (read === entry) read = undefined
      })
      read = entry
    }
    return read.states
  }
  const egresses = input.egressAddresses.length > 0 ? input.egressAddresses : ['']
  const limitsOf = (provider: string) =>
    input.rules.providers.find((rule) => rule.name === provider)?.limits ?? input.rules.default.limits
  const rateOf = (
    known: Map<string, RateState>,
    provider: string,
    scope: string,
    at: readonly string[] = egresses,
  ) => {
    const limits = limitsOf(provider)
    const nowMs = now()
    let perMinute = 0
    for (const egress of at) {
      const state =
        (scope === '' ? undefined : known.get(key(provider, egress, scope))) ??
        known.get(key(provider, egress, '')) ??
        input.controller.initial(limits, nowMs)
      perMinute += input.controller.perMinute(state, limits, nowMs)
    }
    return perMinute * (1 - input.rules.criticalReserve)
  }
  return {
    async ratePerMinute(provider) {
      return rateOf((await states()).byKey, provider, '')
    },
    async tenantRatePerMinute(tenantId, provider) {
      const { byKey, singled } = await states()
      return singled.has(`${provider}\u0000${tenantId}`) ? rateOf(byKey, provider, tenantId) : undefined
    },
    async ratePerMinuteAt(provider, egress) {
      return rateOf((await states()).byKey, provider, '', [egress])
    },
    forget() {
      read = undefined
    },
  }
}

/**
 * The pacer's side of the shares the gate keeps: its backlogged tenants are noted as waiting at the
 * provider from their egress addresses (so the API's mail there sees them), and each one's share of
 * that address's rate comes back. A tenant alone at its address gets no entry (no cap).
 */
export function tenantShares(input: {
  demand: ProviderDemand
  egressFor: (ask: { tenantId: string; provider: string }) => Promise<string>
  rateAt: (provider: string, egress: string) => Promise<number>
}): (
  provider: string,
  tenants: readonly { tenantId: string; weight: number }[],
) => Promise<Map<string, number>> {
  return async (provider, tenants) => {
    const byEgress = new Map<string, { tenantId: string; weight: number }[]>()
    for (const tenant of tenants) {
      const egress = await input.egressFor({ tenantId: tenant.tenantId, provider })
      byEgress.set(egress, [...(byEgress.get(egress) ?? []), tenant])
    }
    const shares = new Map<string, number>()
    for (const [egress, group] of byEgress) {
      const active = await input.demand.note({
        egress,
        provider,
        notes: group.map((tenant) => ({ ...tenant, kind: 'waiting' as const })),
      })
      const rate = await input.rateAt(provider, egress)
      for (const tenant of group) {
        const share = shareWanting(rate, active, tenant.tenantId, tenant.weight)
        if (share < rate) shares.set(tenant.tenantId, share)
      }
    }
    return shares
  }
}
