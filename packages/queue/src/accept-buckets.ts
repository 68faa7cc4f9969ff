import type { Config } from '@fairlane/config'
import {
  type AcceptBucketSize,
  type AcceptBuckets,
  type AcceptPlan,
  acceptBucketStep,
  type PlanDecision,
} from '@fairlane/core/accept'
import type { RedisClient } from './connections'

/**
 * The accept buckets of `admit-by-plan.ts` in Redis, shared by every process that accepts mail (web,
 * submission), so each way in spends the same plan: one key per tenant
 * and lane holding its theoretical arrival time. While Redis is away (or slower than the limiters'
 * 200 ms), this process keeps its own buckets in memory, as the request limiters fall back: mail is
 * still accepted, within a plan per process instead of a global one.
 */

/**
 * KEYS[1]  tat   theoretical arrival time, ms since the epoch (Redis's clock); absent = bucket full
 * ARGV[1]  ratePerSec
 * ARGV[2]  capacity
 * ARGV[3]  what to take (a message's cost, ≥ 1), or 0 to look only (for one)
 * Returns {1} when there is room (taken if asked), {0, retryAfterUs} when full. Mirrors
 * `acceptBucketStep`; the key expires once the bucket is full again.
 */
const STEP_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local interval = 1000 / tonumber(ARGV[1])
local from = tonumber(redis.call('GET', KEYS[1])) or now
if from < now then from = now end
local cost = tonumber(ARGV[3])
local wait = from - now - (tonumber(ARGV[2]) - math.max(cost, 1)) * interval
if wait > 0 then return {0, math.ceil(wait * 1000)} end
if cost > 0 then
  local tat = from + cost * interval
  redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
end
return {1}
`

const STEP_COMMAND = 'fairlaneAcceptStep'
const REDIS_TIMEOUT_MS = 200

interface StepCommands {
  [STEP_COMMAND](key: string, ratePerSec: number, capacity: number, take: number): Promise<number[]>
}

/** Each lane's plan (today one transactional plan for every tenant) and its horizon. */
export function acceptPlanOf(
  config: Pick<Config, 'TRANSACTIONAL_RATE_PER_SEC' | 'TRANSACTIONAL_BURST' | 'ACCEPT_HORIZON_MS'>,
): AcceptPlan {
  const plan = { ratePerSec: config.TRANSACTIONAL_RATE_PER_SEC, burst: config.TRANSACTIONAL_BURST }
  return {
    critical: { plan, horizonMs: config.ACCEPT_HORIZON_MS.critical },
    default: { plan, horizonMs: config.ACCEPT_HORIZON_MS.default },
  }
}

/** `keyPrefix`: `<QUEUE_PREFIX>:rl`, as the request limiters'; keys `<prefix>:accept:{<lane>:<tenant>}`. */
export function createAcceptBuckets(options: { redis: RedisClient; keyPrefix: string }): AcceptBuckets {
  options.redis.defineCommand(STEP_COMMAND, { numberOfKeys: 1, lua: STEP_SCRIPT })
  const redis = options.redis as RedisClient & StepCommands
  const memory = new Map<string, number>()
  // A full bucket has no room before its retry time whoever asks (only time refills it), so a refusal
  // is remembered until then and the same tenant's next requests are refused without a Redis call.
  const fullUntil = new Map<string, number>()
  const inMemory = (bucket: string, size: AcceptBucketSize, take: number): PlanDecision => {
    const now = Date.now()
    const step = acceptBucketStep(memory.get(bucket) ?? null, now, size, Math.max(take, 1))
    if (take > 0 && step.allowed) memory.set(bucket, step.tatMs)
    // Forget full buckets now and then, so the map holds only tenants that sent recently.
    if (memory.size > 10_000) for (const [key, tat] of memory) if (tat < now) memory.delete(key)
    return step.allowed ? { allowed: true } : { allowed: false, retryAfterMs: step.retryAfterMs }
  }
  const remember = (bucket: string, decision: PlanDecision): PlanDecision => {
    if (decision.allowed) return decision
    const now = Date.now()
    if (fullUntil.size > 10_000) for (const [key, until] of fullUntil) if (until <= now) fullUntil.delete(key)
    fullUntil.set(bucket, now + decision.retryAfterMs)
    return decision
  }
  // `take`: the cost to spend, 0 to look only.
  const step = async (bucket: string, size: AcceptBucketSize, take: number): Promise<PlanDecision> => {
    const until = fullUntil.get(bucket)
    if (until !== undefined && until > Date.now()) return { allowed: false, retryAfterMs: until - Date.now() }
    return remember(bucket, await stepOnce(bucket, size, take))
  }
  const stepOnce = async (bucket: string, size: AcceptBucketSize, take: number): Promise<PlanDecision> => {
    if (redis.status !== 'ready') return inMemory(bucket, size, take)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), REDIS_TIMEOUT_MS)
    })
    const call = redis[STEP_COMMAND](
      `${options.keyPrefix}:accept:{${bucket}}`,
      size.ratePerSec,
      size.capacity,
      take,
    )
    // After a timeout nobody awaits the call any more; its late rejection must not go unhandled.
    call.catch(() => {})
    try {
      const reply = await Promise.race([call, timeout])
      if (reply === 'timeout') return inMemory(bucket, size, take)
      const [allowed, retryAfterUs] = reply.map(Number)
      return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterMs: (retryAfterUs ?? 0) / 1000 }
    } catch {
      return inMemory(bucket, size, take)
    } finally {
      clearTimeout(timer)
    }
  }
  return {
    take: (bucket, size, cost = 1) => step(bucket, size, Math.max(1, Math.ceil(cost))),
    peek: (bucket, size) => step(bucket, size, 0),
  }
}
