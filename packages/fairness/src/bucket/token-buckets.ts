import { type RedisClient, readGroupedKeys } from '../redis-reads'
import { assertBucketPlan, type BucketPlan } from './gcra'
import { TAKE_SCRIPT, TAKE_UP_TO_SCRIPT } from './scripts'

/**
 * Per-tenant send buckets in Redis, shared by every worker: a worker takes a token before each send
 * and, refused, delays the job to the slot it was given (see `deferralDelayMs`). One EVALSHA per take.
 */

export type TakeResult =
  /** `atMs`: the Redis server's clock at the decision, for measuring against the guarantee. */
  | { ok: true; atMs: number }
  | {
      ok: false
      atMs: number
      /** Until the bucket's next token, > 0. */
      retryAfterMs: number
      /** 1-based slot after the next token reserved for this job; successive refusals get successive slots. */
      position: number
    }

export type TakeUpToResult =
  | { granted: number; all: true; atMs: number }
  | { granted: number; all: false; atMs: number; retryAfterMs: number; position: number }

export interface TokenBuckets {
  /** `bucket` names one bucket, e.g. `bulk:<tenantId>`; it must not contain `{` or `}`. */
  take(bucket: string, plan: BucketPlan): Promise<TakeResult>
  /**
   * Up to `count` tokens in one script call (a batch): `granted` of them, and when fewer, how long
   * until the next one and the deferral slot reserved for the rest (as a refused `take`).
   */
  takeUpTo(bucket: string, plan: BucketPlan, count: number): Promise<TakeUpToResult>
  /**
   * Each bucket's running total of refusals (0 for a bucket never refused, or idle long enough for the
   * total to expire): whoever feeds the bucket (the pacer) reads it every tick, and each new refusal
   * is a token it counted on that a deferred job will take later. One MGET for all of them on one
   * Redis; on a cluster one read per bucket, pipelined per node (`readGroupedKeys`).
   */
  refusalTotals(buckets: string[]): Promise<number[]>
  /** Refused takes per bucket over about the last `windowMs` (10 s resolution, at most 110 s). */
  deferredRecently(buckets: string[], windowMs?: number): Promise<Map<string, number>>
}

/** Refusals are counted in 10 s periods; counters outlive the longest window that can be asked for. */
const DEFERRAL_PERIOD_MS = 10_000
const DEFERRAL_COUNTER_TTL_MS = 120_000
const MAX_DEFERRAL_WINDOW_MS = DEFERRAL_COUNTER_TTL_MS - DEFERRAL_PERIOD_MS
/** A refusal total outlives any pause between two pacer ticks by far; a reader treats a drop as a restart. */
const REFUSAL_TOTAL_TTL_MS = 600_000
/** Keys live this long past the moment they stop mattering, so a slow clock never loses state early. */
const IDLE_MARGIN_MS = 1000

const TAKE_COMMAND = 'fairlaneBucketTake'
const TAKE_UP_TO_COMMAND = 'fairlaneBucketTakeUpTo'

type ScriptArgument = string | number

interface BucketCommands {
  [TAKE_COMMAND](...keysAndArgs: ScriptArgument[]): Promise<ScriptArgument[]>
  [TAKE_UP_TO_COMMAND](...keysAndArgs: ScriptArgument[]): Promise<ScriptArgument[]>
}

/**
 * `prefix` is used as given (include the separator, e.g. `fl:`); keys are
 * `<prefix>bucket:{<bucket>}:tat`, `…:last-slot`, `…:deferred:<period>` and `…:refusals`.
 */
export function createTokenBuckets(redis: RedisClient, options: { prefix: string }): TokenBuckets {
  const commands = withBucketCommands(redis)
  const keyOf = (bucket: string, part: string) => `${options.prefix}bucket:{${checkedName(bucket)}}:${part}`
  // The keys and ARGV[1..6] both take scripts share (scripts.ts).
  const scriptArgs = (bucket: string, plan: BucketPlan): ScriptArgument[] => [
    keyOf(bucket, 'tat'),
    keyOf(bucket, 'last-slot'),
    keyOf(bucket, 'deferred:'),
    keyOf(bucket, 'refusals'),
    plan.ratePerSec,
    plan.burst,
    DEFERRAL_PERIOD_MS,
    DEFERRAL_COUNTER_TTL_MS,
    IDLE_MARGIN_MS,
    REFUSAL_TOTAL_TTL_MS,
  ]

  return {
    async take(bucket, plan) {
      assertBucketPlan(plan)
      const reply = await commands[TAKE_COMMAND](...scriptArgs(bucket, plan))
      const [taken, nowUs, retryAfterUs, position] = reply.map(Number)
      const atMs = (nowUs as number) / 1000
      if (taken === 1) return { ok: true, atMs }
      return { ok: false, atMs, retryAfterMs: (retryAfterUs as number) / 1000, position: position as number }
    },

    async takeUpTo(bucket, plan, count) {
      assertBucketPlan(plan)
      if (!(Number.isInteger(count) && count >= 1)) {
        throw new RangeError(`count must be a whole number of at least 1, got ${count}`)
      }
      const reply = await commands[TAKE_UP_TO_COMMAND](...scriptArgs(bucket, plan), count)
      const [granted, nowUs, retryAfterUs, position] = reply.map(Number)
      const atMs = (nowUs as number) / 1000
      if (granted === count) return { granted: count, all: true, atMs }
      return {
        granted: granted as number,
        all: false,
        atMs,
        retryAfterMs: (retryAfterUs as number) / 1000,
        position: position as number,
      }
    },

    async refusalTotals(buckets) {
      if (buckets.length === 0) return []
      const values = await readGroupedKeys(
        redis,
        buckets.map((bucket) => [keyOf(bucket, 'refusals')]),
      )
      return values.map(([value]) => Number(value ?? 0))
    },

    async deferredRecently(buckets, windowMs = 60_000) {
      if (!(windowMs > 0 && windowMs <= MAX_DEFERRAL_WINDOW_MS)) {
        throw new RangeError(`windowMs must be in (0, ${MAX_DEFERRAL_WINDOW_MS}], got ${windowMs}`)
      }
      const counts = new Map<string, number>()
      if (buckets.length === 0) return counts
      // The periods are numbered by the server clock, as the take script numbers them.
      const [seconds, micros] = (await redis.time()).map(Number)
      const nowMs = (seconds as number) * 1000 + (micros as number) / 1000
      const periods: number[] = []
      const last = Math.floor(nowMs / DEFERRAL_PERIOD_MS)
      for (let period = Math.floor((nowMs - windowMs) / DEFERRAL_PERIOD_MS); period <= last; period++) {
        periods.push(period)
      }
      // A bucket's counters share its hash tag (one slot); different buckets' may not.
      const values = await readGroupedKeys(
        redis,
        buckets.map((bucket) => periods.map((period) => keyOf(bucket, `deferred:${period}`))),
      )
      buckets.forEach((bucket, index) => {
        counts.set(
          bucket,
          (values[index] ?? []).reduce((sum, value) => sum + Number(value ?? 0), 0),
        )
      })
      return counts
    },
  }
}

/** Registers the scripts on the connection (idempotent); ioredis then sends EVALSHA, falling back to EVAL once. */
function withBucketCommands(redis: RedisClient): RedisClient & BucketCommands {
  redis.defineCommand(TAKE_COMMAND, { numberOfKeys: 4, lua: TAKE_SCRIPT })
  redis.defineCommand(TAKE_UP_TO_COMMAND, { numberOfKeys: 4, lua: TAKE_UP_TO_SCRIPT })
  return redis as RedisClient & BucketCommands
}

/** A brace in the name would move the hash tag and split the bucket's keys across cluster slots. */
function checkedName(bucket: string): string {
  if (bucket.length === 0 || /[{}]/.test(bucket)) {
    throw new RangeError(`bucket name must be non-empty and free of braces, got "${bucket}"`)
  }
  return bucket
}
