import type { RedisClient } from '../redis-reads'

/**
 * What happened at each receiving provider from each egress address (MX mode), counted per minute in
 * Redis for the console and `GET /api/admin/receivers`: attempts, accepted replies, throttle replies,
 * deferrals (mail the provider's budget had no room for, or that a throttle sent back), and each
 * tenant's attempts, for the tenants' shares of the provider. Counters, not a log: a lost increment
 * skews a share by one message, so they are written in the same turn as the send, never awaited by it.
 */

export const RECEIVER_COUNT_KINDS = ['attempt', 'accepted', 'throttled', 'deferred'] as const
export type ReceiverCountKind = (typeof RECEIVER_COUNT_KINDS)[number]

export interface ReceiverCountInput {
  provider: string
  /** The egress address the mail left from; '' when the system picked it. */
  egress: string
  tenantId: string
  kind: ReceiverCountKind
}

export interface ReceiverCounts {
  provider: string
  egress: string
  attempts: number
  accepted: number
  throttled: number
  deferred: number
  /** Tenants with attempts in the window, the most first. */
  tenants: { tenantId: string; attempts: number }[]
}

export interface ReceiverCounters {
  /** One count, written without waiting for another (two commands sent in the same turn). */
  record(input: ReceiverCountInput): Promise<void>
  /** Per (provider, egress) with any count in the last `windowMinutes` (1–120, this minute included). */
  read(input: { windowMinutes: number }): Promise<ReceiverCounts[]>
}

/** Counters are kept per minute, and outlive the longest window that can be asked for. */
const MINUTE_MS = 60_000
export const MAX_RECEIVER_WINDOW_MINUTES = 120
const COUNTER_TTL_MS = (MAX_RECEIVER_WINDOW_MINUTES + 5) * MINUTE_MS
/**
 * The known (provider, egress) pairs are bounded: a domain that is its own provider (every small
 * domain) adds one, so the least recently used are dropped past this many, and any idle past the TTL.
 */
export const MAX_KNOWN_RECEIVERS = 2_000
const TENANT_FIELD = 't:'

/**
 * `prefix` is used as given (include the separator, e.g. `fl:`); keys are
 * `<prefix>receivers:{<provider>|<egress>}:<minute>` (a hash: one field per kind and `t:<tenantId>`
 * per tenant's attempts) and `<prefix>receivers:known` (a sorted set of pairs by last use, ms).
 */
export function createReceiverCounters(
  redis: RedisClient,
  options: { prefix: string; clock?: { now(): number } },
): ReceiverCounters {
  const clock = options.clock ?? Date
  const knownKey = `${options.prefix}receivers:known`
  const minuteKey = (provider: string, egress: string, minute: number) =>
    `${options.prefix}receivers:{${checkedPart('provider', provider)}|${checkedPart('egress', egress)}}:${minute}`

  return {
    async record(input) {
      if (!RECEIVER_COUNT_KINDS.includes(input.kind)) {
        throw new RangeError(`kind must be one of ${RECEIVER_COUNT_KINDS.join(', ')}, got "${input.kind}"`)
      }
      const now = clock.now()
      const key = minuteKey(input.provider, input.egress, Math.floor(now / MINUTE_MS))
      // The minute's hash and the pair's entry live in different slots on a cluster: two pipelines.
      const counts = redis.pipeline().hincrby(key, input.kind, 1)
      if (input.kind === 'attempt') counts.hincrby(key, `${TENANT_FIELD}${input.tenantId}`, 1)
      counts.pexpire(key, COUNTER_TTL_MS)
      const known = redis
        .pipeline()
        .zadd(knownKey, now, JSON.stringify([input.provider, input.egress]))
        .zremrangebyscore(knownKey, '-inf', now - COUNTER_TTL_MS)
        .zremrangebyrank(knownKey, 0, -(MAX_KNOWN_RECEIVERS + 1))
      const results = await Promise.all([counts.exec(), known.exec()])
      const failed = results.flatMap((replies) => replies ?? []).find(([error]) => error)
      if (failed?.[0]) throw failed[0]
    },

    async read({ windowMinutes }) {
      if (
        !(
          Number.isInteger(windowMinutes) &&
          windowMinutes >= 1 &&
          windowMinutes <= MAX_RECEIVER_WINDOW_MINUTES
        )
      ) {
        throw new RangeError(
          `windowMinutes must be a whole number in [1, ${MAX_RECEIVER_WINDOW_MINUTES}], got ${windowMinutes}`,
        )
      }
      const now = clock.now()
      const members = await redis.zrangebyscore(knownKey, now - windowMinutes * MINUTE_MS - MINUTE_MS, '+inf')
      const pairs = members.flatMap(parsePair)
      if (pairs.length === 0) return []
      const last = Math.floor(now / MINUTE_MS)
      const minutes = Array.from({ length: windowMinutes }, (_, index) => last - index)
      // HGETALL per minute (tenant fields vary), all in the same turn: ioredis pipelines them per node.
      const hashes = await Promise.all(
        pairs.map(([provider, egress]) =>
          Promise.all(minutes.map((minute) => redis.hgetall(minuteKey(provider, egress, minute)))),
        ),
      )
      return pairs
        .map(([provider, egress], index) => sumMinutes(provider, egress, hashes[index] ?? []))
        .filter((counts) => counts.attempts + counts.accepted + counts.throttled + counts.deferred > 0)
        .sort((a, b) => a.provider.localeCompare(b.provider) || a.egress.localeCompare(b.egress))
    },
  }
}

function sumMinutes(provider: string, egress: string, minutes: Record<string, string>[]): ReceiverCounts {
  const totals = { attempt: 0, accepted: 0, throttled: 0, deferred: 0 }
  const tenants = new Map<string, number>()
  for (const hash of minutes) {
    for (const [field, value] of Object.entries(hash)) {
      const count = Number(value)
      if (field.startsWith(TENANT_FIELD)) {
        const tenantId = field.slice(TENANT_FIELD.length)
        tenants.set(tenantId, (tenants.get(tenantId) ?? 0) + count)
      } else if (field in totals) {
        totals[field as ReceiverCountKind] += count
      }
    }
  }
  return {
    provider,
    egress,
    attempts: totals.attempt,
    accepted: totals.accepted,
    throttled: totals.throttled,
    deferred: totals.deferred,
    tenants: [...tenants]
      .map(([tenantId, attempts]) => ({ tenantId, attempts }))
      .sort((a, b) => b.attempts - a.attempts || a.tenantId.localeCompare(b.tenantId)),
  }
}

/** A member written by another version, or by hand, is skipped rather than failing the console. */
function parsePair(member: string): [string, string][] {
  try {
    const value: unknown = JSON.parse(member)
    if (Array.isArray(value) && value.length === 2) {
      const [provider, egress] = value as unknown[]
      if (typeof provider === 'string' && typeof egress === 'string') return [[provider, egress]]
    }
  } catch {}
  return []
}

/** A brace would move the hash tag; a `|` would make two pairs share one key. */
function checkedPart(name: string, value: string): string {
  if (/[{}|]/.test(value) || (name === 'provider' && value.length === 0)) {
    throw new RangeError(
      `${name} must be ${name === 'provider' ? 'non-empty and ' : ''}free of {, } and |, got "${value}"`,
    )
  }
  return value
}
