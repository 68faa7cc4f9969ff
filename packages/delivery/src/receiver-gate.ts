import type {
  ReceiverAdmission,
  ReceiverAsk,
  ReceiverGate,
  ReceiverOutcome,
  ReceiverRoute,
  ReceiverVerdict,
} from '@fairlane/core/delivery'
import type { ProviderLimits } from './receivers/rules'
import type { ReplyClass, ThrottleScope } from './replies/classify'
import { type DemandEntry, demandShares } from './shaping/demand-shares'

/**
 * What one provider's budget looks like to the gate: the rate controller's state, stored per egress
 * address × provider × scope ('' for every tenant, or a tenant's id). Its maths are pure
 * (`shaping/aimd.ts`); the gate only asks it three questions and hands it a throttle.
 */
export interface RateController<State> {
  initial(limits: ProviderLimits, nowMs: number): State
  /** A state read back from storage, checked (an error names what is wrong). */
  parse(stored: unknown): State
  /** Messages a minute allowed now: 0 while paused; the slow climb back is computed, not stored. */
  perMinute(state: State, limits: ProviderLimits, nowMs: number): number
  /** Until when the provider is paused (ms since the epoch), or null. */
  pausedUntil(state: State): number | null
  /** A throttling reply: the rate is cut at once (one cut per hold-down) and the provider paused. */
  onThrottle(state: State, limits: ProviderLimits, nowMs: number): State
}

/** The stored states (`receiver_states`, `@fairlane/db/queries/receiver-states`). */
export interface ReceiverStates {
  read(input: {
    egress: string
    provider: string
    scopes: string[]
  }): Promise<{ scope: string; state: unknown; lastReply: string | null }[]>
  throttle(
    key: { egress: string; provider: string; scope: string },
    reply: string,
    change: (current: unknown) => { state: unknown; pausedUntil: Date | null },
  ): Promise<{ scope: string; state: unknown; lastReply: string | null }>
}

/** The provider budgets' token buckets (`@fairlane/fairness` `TokenBuckets.take`, shared by every worker). */
export interface ProviderBuckets {
  take(
    bucket: string,
    plan: { ratePerSec: number; burst: number },
  ): Promise<{ ok: true } | { ok: false; retryAfterMs: number; position: number }>
  /** Up to `count` tokens in one call (a batch); without it a batch takes one at a time. */
  takeUpTo?(
    bucket: string,
    plan: { ratePerSec: number; burst: number },
    count: number,
  ): Promise<
    { granted: number; all: true } | { granted: number; all: false; retryAfterMs: number; position: number }
  >
}

/**
 * A warming egress address's daily cap per provider (the rules file's schedule, by sending day):
 * whether one more message may go today, or until when it waits.
 */
export interface WarmupCheck {
  admit(input: {
    egress: string
    provider: string
    nowMs: number
  }): Promise<{ ok: true } | { ok: false; untilMs: number; cap: number; sendingDay: number }>
}

/**
 * Who wants a provider's budget at an egress address (`createReceiverDemand` of `@fairlane/fairness`,
 * in Redis for every worker): notes this ask, or mail turned away, and answers every tenant active there.
 */
export interface ProviderDemand {
  note(input: {
    egress: string
    provider: string
    notes: readonly { tenantId: string; weight: number; kind: 'ask' | 'waiting' }[]
  }): Promise<DemandEntry[]>
}

/** A recipient domain's provider: MX lookup and rollup. Unresolvable domains are their own provider. */
export type ProviderOf = (domain: string) => Promise<{ provider: string; limits: ProviderLimits }>

/** What a failed send's reply says, in the provider's words: undefined for a failure that is not a reply. */
export type ReadReply = (error: unknown) => { class: ReplyClass; reply: string } | undefined

export interface ReceiverGateDeps<State> {
  providerOf: ProviderOf
  /** The egress address a tenant's mail to a provider leaves from ('' lets the system pick). */
  egressFor(input: { tenantId: string; provider: string }): string | Promise<string>
  states: ReceiverStates
  controller: RateController<State>
  buckets: ProviderBuckets
  readReply: ReadReply
  /** The share of each provider's rate kept for the critical lane (login codes); it may also use the rest. */
  criticalReserve: number
  clock: { now(): number }
  /** How long a worker trusts the states it read (a throttle it saw itself updates them at once). */
  statesCacheMs?: number
  /** Warm-up caps of new egress addresses; without it, none. */
  warmup?: WarmupCheck
  /**
   * Tenants' demand at each provider: with it, a tenant is held to its weighted max-min share of the
   * shared rate while others want it too (its own bucket at that share); without it, first come first
   * served within the provider's rate.
   */
  demand?: ProviderDemand
  /** A tenant's weight (its plan's), for its share; 1 without it. */
  weightOf?(tenantId: string): number | Promise<number>
  /** Every reply's class per provider, for `fairlane_receiver_replies_total`. */
  observe?(input: { provider: string; egress: string; replyClass: ReplyClass['kind'] }): void
  random?: () => number
}

const DEFAULT_STATES_CACHE_MS = 1_000
/** Scope of a state that holds for every tenant. */
const EVERYONE = ''

/**
 * MX mode's receiving side (`ReceiverGate` of the send use case). Each provider's budget at each egress
 * address is a token bucket at the rate its controller allows now, split in two: the critical lane's
 * reserve (`criticalReserve` of the rate, which login codes try first) and the rest, shared by every
 * lane. A provider that throttled is paused and its rate cut at once, in PostgreSQL, so every worker
 * (and the next process after a crash) obeys it; when its reply names one tenant's domain, only that
 * tenant is slowed at that provider. Mail the budget has no room for is deferred to the bucket's next
 * slot for it: the provider's pace, not a timer of the message's own.
 */
export function createReceiverGate<State>(deps: ReceiverGateDeps<State>): ReceiverGate {
  const cacheMs = deps.statesCacheMs ?? DEFAULT_STATES_CACHE_MS
  const random = deps.random ?? Math.random
  const cache = new Map<string, { readAtMs: number; states: Map<string, StoredState<State>> }>()
  const limitsOf = new Map<string, ProviderLimits>()

  const cacheKey = (egress: string, provider: string) => `${egress}\u0000${provider}`
  async function statesOf(egress: string, provider: string, tenantId: string) {
    const key = cacheKey(egress, provider)
    const now = deps.clock.now()
    const cached = cache.get(key)
    if (cached && now - cached.readAtMs < cacheMs && cached.states.has(`?${tenantId}`)) return cached.states
    const rows = await deps.states.read({ egress, provider, scopes: [EVERYONE, tenantId] })
    // Remembers that this tenant was asked about (a `?` entry), so an unthrottled tenant is one read a second.
    const states = new Map<string, StoredState<State>>(
      cached && now - cached.readAtMs < cacheMs ? cached.states : [],
    )
    states.set(`?${tenantId}`, { state: undefined, lastReply: null })
    for (const row of rows) {
      states.set(row.scope, { state: deps.controller.parse(row.state), lastReply: row.lastReply })
    }
    cache.set(key, { readAtMs: now, states })
    if (cache.size > 10_000) cache.delete(cache.keys().next().value as string)
    return states
  }

  /** Up to `count` tokens of a bucket: one take for one, the batch script when the buckets have it. */
  async function takeUpTo(
    bucket: string,
    plan: { ratePerSec: number; burst: number },
    count: number,
  ): Promise<{ granted: number; retryAfterMs: number; position: number }> {
    if (count > 1 && deps.buckets.takeUpTo) {
      const taken = await deps.buckets.takeUpTo(bucket, plan, count)
      return taken.all
        ? { granted: count, retryAfterMs: 0, position: 0 }
        : { granted: taken.granted, retryAfterMs: taken.retryAfterMs, position: taken.position }
    }
    for (let granted = 0; granted < count; granted++) {
      const taken = await deps.buckets.take(bucket, plan)
      if (!taken.ok) return { granted, retryAfterMs: taken.retryAfterMs, position: taken.position }
    }
    return { granted: count, retryAfterMs: 0, position: 0 }
  }

  /**
   * The provider's budget asked for `count` messages of one tenant, through the same buckets in the
   * same order for one message as for a batch: the tenant's own state (paused, or singled out), the
   * warm-up, the critical reserve, the tenant's share, the provider's shared bucket. Each bucket is
   * asked for what the ones before it granted, so the provider's own buckets never give more than
   * is sent; a batch granted less by a later bucket leaves the earlier ones a little spent (the
   * tenant's own bucket, the warm-up's count for the day), which only slows that tenant or ends the
   * warm-up day early, never sends more than a provider allows. `short`: why not all of them, and
   * when the rest may ask.
   */
  async function grant(
    ask: ReceiverAsk,
    count: number,
  ): Promise<{
    route: ReceiverRoute
    provider: string
    egress: string
    granted: number
    short?: { delayMs: number; reason: string }
  }> {
    const { provider, limits } = await deps.providerOf(domainOf(ask.toAddress))
    limitsOf.set(provider, limits)
    const egress = await deps.egressFor({ tenantId: ask.tenantId, provider })
    const states = await statesOf(egress, provider, ask.tenantId)
    const now = deps.clock.now()
    const route: ReceiverRoute = {
      provider,
      ...(egress ? { egressAddress: egress } : {}),
      limits: { connections: limits.connections, messagesPerConnection: limits.messagesPerConnection },
    }
    const answer = (granted: number, short?: { delayMs: number; reason: string }) => ({
      route,
      provider,
      egress,
      granted,
      ...(short ? { short: { delayMs: Math.max(1, Math.ceil(short.delayMs)), reason: short.reason } } : {}),
    })

    // The tenant's own state first: a provider that throttled this tenant's domain slows it alone.
    for (const scope of [ask.tenantId, EVERYONE]) {
      const stored = states.get(scope)
      if (!stored?.state) continue
      const pausedUntil = deps.controller.pausedUntil(stored.state)
      if (pausedUntil !== null && pausedUntil > now) {
        // Spread over a second: the mail paused together does not all come back in one instant.
        return answer(0, {
          delayMs: pausedUntil - now + random() * 1_000,
          reason: pauseReason(provider, stored.lastReply),
        })
      }
    }
    let wanted = count
    let short: { delayMs: number; reason: string } | undefined
    const tenantState = states.get(ask.tenantId)?.state
    if (tenantState !== undefined) {
      const perMinute = deps.controller.perMinute(tenantState, limits, now)
      const taken = await takeUpTo(
        bucketName(egress, provider, `tenant:${ask.tenantId}`),
        planOf(perMinute),
        wanted,
      )
      if (taken.granted < wanted) {
        short = {
          delayMs: slotDelay(taken, perMinute, random),
          reason: `${provider} allows this sender ${rateText(perMinute)}`,
        }
        wanted = taken.granted
        if (wanted === 0) return answer(0, short)
      }
    }
    if (deps.warmup && egress) {
      for (let admitted = 0; admitted < wanted; admitted++) {
        const warm = await deps.warmup.admit({ egress, provider, nowMs: now })
        if (warm.ok) continue
        short = {
          delayMs: warm.untilMs - now + random() * 60_000,
          reason: `${egress} is warming up: ${warm.cap} a day to ${provider} on its sending day ${warm.sendingDay}`,
        }
        wanted = admitted
        if (wanted === 0) return answer(0, short)
        break
      }
    }
    const whole = states.get(EVERYONE)?.state ?? deps.controller.initial(limits, now)
    const perMinute = deps.controller.perMinute(whole, limits, now)
    const reserved = perMinute * deps.criticalReserve
    let reserve = 0
    if (ask.lane === 'critical' && reserved > 0) {
      reserve = (await takeUpTo(bucketName(egress, provider, 'critical'), planOf(reserved), wanted)).granted
      if (reserve === wanted) return answer(wanted, short)
    }
    let rest = wanted - reserve
    const shared = perMinute - reserved
    const weight = deps.demand ? ((await deps.weightOf?.(ask.tenantId)) ?? 1) : 1
    const turnedAway = async (delayMs: number, reason: string) => {
      // Mail waiting: this tenant would take any share it is given, until it stops asking.
      await deps.demand?.note({
        egress,
        provider,
        notes: [{ tenantId: ask.tenantId, weight, kind: 'waiting' }],
      })
      return { delayMs, reason }
    }
    if (deps.demand) {
      const active = await deps.demand.note({
        egress,
        provider,
        notes: [{ tenantId: ask.tenantId, weight, kind: 'ask' }],
      })
      // The most this tenant may take while the others ask what they ask: its share as if it had
      // mail waiting (below it, it takes less than its part anyway, and is not held back).
      const share = shareWanting(shared, active, ask.tenantId, weight)
      // Others want this provider too: this tenant's part of it, in a bucket of its own.
      if (share < shared) {
        // Two seconds of burst: a share token taken just before the shared bucket refused (another
        // tenant's token came first) must not cost the tenant its next turn.
        const mine = await takeUpTo(
          bucketName(egress, provider, `share:${ask.tenantId}`),
          planOf(share, 2),
          rest,
        )
        if (mine.granted < rest) {
          short = await turnedAway(
            slotDelay(mine, share, random),
            `${provider} is shared by ${active.length} senders: this one’s share is ${rateText(share)}`,
          )
          rest = mine.granted
          if (rest === 0) return answer(reserve, short)
        }
      }
    }
    const taken = await takeUpTo(bucketName(egress, provider, 'shared'), planOf(shared), rest)
    if (taken.granted < rest) {
      short = await turnedAway(
        slotDelay(taken, shared, random),
        `${provider} is at its rate of ${rateText(perMinute)}`,
      )
    }
    return answer(reserve + taken.granted, short)
  }

  return {
    async admit(ask: ReceiverAsk): Promise<ReceiverAdmission> {
      const granted = await grant(ask, 1)
      if (granted.granted === 1) return { ok: true, route: granted.route }
      return refusal(granted)
    },

    async admitUpTo(ask: ReceiverAsk, count: number) {
      if (!(Number.isInteger(count) && count >= 1)) {
        throw new RangeError(`count must be a whole number of at least 1, got ${count}`)
      }
      const granted = await grant(ask, count)
      if (granted.granted === 0) return refusal(granted)
      return {
        ok: true as const,
        route: granted.route,
        granted: granted.granted,
        delayMs: granted.short?.delayMs ?? 0,
        ...(granted.short ? { reason: granted.short.reason } : {}),
      }
    },

    stillOpen(input: ReceiverAsk & { route: ReceiverRoute }): ReceiverAdmission {
      const { provider } = input.route
      const egress = input.route.egressAddress ?? ''
      const states = cache.get(cacheKey(egress, provider))?.states
      const now = deps.clock.now()
      for (const scope of [input.tenantId, EVERYONE]) {
        const stored = states?.get(scope)
        if (!stored?.state) continue
        const pausedUntil = deps.controller.pausedUntil(stored.state)
        if (pausedUntil !== null && pausedUntil > now)
          return {
            ok: false,
            delayMs: Math.max(1, Math.ceil(pausedUntil - now + random() * 1_000)),
            provider,
            reason: pauseReason(provider, stored.lastReply),
            ...(egress ? { egressAddress: egress } : {}),
          }
      }
      return { ok: true, route: input.route }
    },

    async learn(
      input: ReceiverAsk & { route: ReceiverRoute; outcome: ReceiverOutcome },
    ): Promise<ReceiverVerdict> {
      const { provider } = input.route
      const egress = input.route.egressAddress ?? ''
      if (input.outcome.kind === 'accepted') {
        deps.observe?.({ provider, egress, replyClass: 'accepted' })
        return { kind: 'as-is' }
      }
      const read = deps.readReply(input.outcome.error)
      if (read) deps.observe?.({ provider, egress, replyClass: read.class.kind })
      if (read?.class.kind !== 'throttle') return { kind: 'as-is' }
      const limits = limitsOf.get(provider) ?? (await deps.providerOf(domainOf(input.toAddress))).limits
      const scope = throttledScope(read.class.scope, input) ? input.tenantId : EVERYONE
      const now = deps.clock.now()
      const written = await deps.states.throttle({ egress, provider, scope }, read.reply, (current) => {
        const before =
          current === undefined ? deps.controller.initial(limits, now) : deps.controller.parse(current)
        const state = deps.controller.onThrottle(before, limits, now)
        const pausedUntil = deps.controller.pausedUntil(state)
        return { state, pausedUntil: pausedUntil === null ? null : new Date(pausedUntil) }
      })
      const state = deps.controller.parse(written.state)
      // This worker obeys at once; the others within their cache's age.
      cache.get(cacheKey(egress, provider))?.states.set(scope, { state, lastReply: written.lastReply })
      const pausedUntil = deps.controller.pausedUntil(state) ?? now
      const perMinute = Math.max(deps.controller.perMinute(state, limits, pausedUntil), 1)
      // After the pause, at the cut rate: one interval, spread so the deferred do not return together.
      const delayMs = Math.max(0, pausedUntil - now) + (60_000 / perMinute) * (1 + random())
      return { kind: 'defer', delayMs: Math.ceil(delayMs), provider, reply: read.reply }
    },
  }
}

/** A grant of nothing, as the admission that defers the mail to the provider's next slot for it. */
function refusal(granted: {
  provider: string
  egress: string
  short?: { delayMs: number; reason: string }
}): Extract<ReceiverAdmission, { ok: false }> {
  return {
    ok: false,
    delayMs: granted.short?.delayMs ?? 1,
    provider: granted.provider,
    reason: granted.short?.reason ?? `${granted.provider} granted nothing`,
    ...(granted.egress ? { egressAddress: granted.egress } : {}),
  }
}

interface StoredState<State> {
  state: State | undefined
  lastReply: string | null
}

/**
 * A throttle that names a domain of this message's sender (its DKIM domain, or one under it: the
 * return path and From) or a URL in its content slows this tenant alone; one about the IP, everyone.
 */
function throttledScope(scope: ThrottleScope, ask: ReceiverAsk): boolean {
  if (scope.kind === 'ip' || scope.kind === 'unknown') return false
  if (scope.kind === 'url-domain') return true
  const named = scope.domain?.toLowerCase()
  const signing = ask.signingDomain?.toLowerCase()
  if (!named || !signing) return false
  return named === signing || named.endsWith(`.${signing}`) || signing.endsWith(`.${named}`)
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase()
}

/** A bucket's name: no braces (they are the Redis Cluster hash tag). */
function bucketName(egress: string, provider: string, part: string): string {
  return `rx:${egress || 'any'}:${provider}:${part}`.replace(/[{}]/g, '_')
}

/** A tenant's weighted max-min share of `perMinute` were it to take whatever it is given. */
export function shareWanting(
  perMinute: number,
  active: readonly DemandEntry[],
  tenantId: string,
  weight: number,
): number {
  const others = active.filter((entry) => entry.tenantId !== tenantId)
  const entries = [...others, { tenantId, weight, demandPerMinute: Number.POSITIVE_INFINITY }]
  return demandShares(perMinute, entries).get(tenantId) ?? perMinute
}

/** `seconds` of the rate as burst (one by default), at least `seconds` messages. */
function planOf(perMinute: number, seconds = 1): { ratePerSec: number; burst: number } {
  const ratePerSec = Math.max(perMinute, 0.01) / 60
  return { ratePerSec, burst: Math.max(seconds, Math.floor(ratePerSec * seconds)) }
}

function slotDelay(
  taken: { retryAfterMs: number; position: number },
  perMinute: number,
  random: () => number,
): number {
  const intervalMs = 60_000 / Math.max(perMinute, 0.01)
  return taken.retryAfterMs + (Math.max(1, taken.position) - 1) * intervalMs + random() * intervalMs
}

function rateText(perMinute: number): string {
  return `${Math.round(perMinute * 10) / 10} a minute`
}

function pauseReason(provider: string, lastReply: string | null): string {
  return lastReply ? `${provider} paused after: ${lastReply}` : `${provider} is paused`
}
