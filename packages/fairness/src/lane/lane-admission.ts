import { assertBucketPlan, type BucketPlan } from '../bucket/gcra'
import type { RedisClient } from '../redis-reads'
import { ADMIT_SCRIPT, HOLD_SCRIPT, RELEASE_SCRIPT } from './scripts'

/**
 * Per-tenant lane slots and turns for the transactional lanes (critical, default), in Redis, shared by
 * every relay and lane worker. The relay admits a tenant's outbox rows into a lane only while the
 * tenant has fewer than `maxSlots` jobs there and only as fast as its plan: a tenant flooding the lane
 * waits in PostgreSQL (parked), so the lane stays first in, first out for everyone else. One EVALSHA
 * per tenant per relay pass, one per job to hold its slot and one to give it back.
 */

/** A tenant's place in one transactional lane: `<lane>:<tenantId>`; also the outbox rows' `park_key`. */
export function laneParkKey(lane: string, tenantId: string): string {
  return `${lane}:${tenantId}`
}

export interface AdmitInput {
  /** Lane job ids in the tenant's order: the parked rows whose turn came first, then fresh rows. */
  jobIds: readonly string[]
  parkedCount: number
  /** False when older rows of the tenant may be left unseen (the batch was cut): fresh rows wait. */
  admitFresh: boolean
  plan: BucketPlan
  maxSlots: number
  slotTtlMs: number
  horizonMs: number
}

export type AdmitStop =
  /** Every row was admitted. */
  | 'none'
  /** The tenant's slots are full: look again when one is given back. */
  | 'slots'
  /** The tenant's next turn is beyond the horizon (`retryInMs`). */
  | 'turns'
  /** Older rows of the tenant are parked ahead of the fresh ones. */
  | 'behind'

export interface AdmitResult {
  /** The Redis server's clock at the decision. */
  atMs: number
  /** One per admitted row (the first ones, in order): how long its job waits for its turn. */
  delaysMs: number[]
  stoppedBy: AdmitStop
  /** With `turns`: until the next turn is within the horizon. */
  retryInMs: number
  /** Turns (ms since the epoch) for the fresh rows not admitted, in order. */
  parkTurnsMs: (freshLeft: number) => number[]
}

export interface LaneAdmission {
  /** `key`: `laneParkKey(lane, tenantId)`; it must not contain `{` or `}`. */
  admit(key: string, input: AdmitInput): Promise<AdmitResult>
  /** The job holds its slot (again): the same member, a new expiry. */
  hold(key: string, jobId: string, slotTtlMs: number): Promise<void>
  /** The job leaves the lane's waiting/running part; `slotsLeft` counts the tenant's slots still held. */
  release(key: string, jobId: string): Promise<{ removed: boolean; slotsLeft: number }>
  /** A batch job gives back its messages' slots in one call; `removed` counts those that were held. */
  releaseMany(key: string, jobIds: readonly string[]): Promise<{ removed: number; slotsLeft: number }>
  /** Slots held now (expired ones not counted), for tests and inspection. */
  heldSlots(key: string): Promise<string[]>
}

/** Keys live this long past the moment they stop mattering, so a slow clock never loses state early. */
const IDLE_MARGIN_MS = 1000
const ADMIT_COMMAND = 'fairlaneLaneAdmit'
const HOLD_COMMAND = 'fairlaneLaneHold'
const RELEASE_COMMAND = 'fairlaneLaneRelease'

type ScriptArgument = string | number

interface LaneCommands {
  [ADMIT_COMMAND](...keysAndArgs: ScriptArgument[]): Promise<ScriptArgument[]>
  [HOLD_COMMAND](...keysAndArgs: ScriptArgument[]): Promise<ScriptArgument>
  [RELEASE_COMMAND](...keysAndArgs: ScriptArgument[]): Promise<ScriptArgument[]>
}

/** `prefix` as given (with its separator); keys are `<prefix>lane:{<lane>:<tenantId>}:slots|tat|tail`. */
export function createLaneAdmission(redis: RedisClient, options: { prefix: string }): LaneAdmission {
  redis.defineCommand(ADMIT_COMMAND, { numberOfKeys: 4, lua: ADMIT_SCRIPT })
  redis.defineCommand(HOLD_COMMAND, { numberOfKeys: 1, lua: HOLD_SCRIPT })
  redis.defineCommand(RELEASE_COMMAND, { numberOfKeys: 1, lua: RELEASE_SCRIPT })
  const commands = redis as RedisClient & LaneCommands
  const keyOf = (key: string, part: string) => `${options.prefix}lane:{${checkedKey(key)}}:${part}`

  async function heldSlots(key: string): Promise<string[]> {
    const [seconds, micros] = (await redis.time()).map(Number)
    const nowMs = (seconds as number) * 1000 + (micros as number) / 1000
    return redis.zrangebyscore(keyOf(key, 'slots'), `(${nowMs}`, '+inf')
  }

  return {
    async admit(key, input) {
      assertBucketPlan(input.plan)
      if (!(input.maxSlots >= 1)) throw new RangeError(`maxSlots must be at least 1, got ${input.maxSlots}`)
      const reply = (
        await commands[ADMIT_COMMAND](
          keyOf(key, 'slots'),
          keyOf(key, 'tat'),
          keyOf(key, 'tail'),
          // The worker's bucket for the same tenant and lane (`token-buckets.ts`): the same hash tag.
          `${options.prefix}bucket:{${key}}:tat`,
          input.maxSlots,
          input.slotTtlMs,
          input.plan.ratePerSec,
          input.plan.burst,
          input.horizonMs,
          input.parkedCount,
          input.admitFresh ? 1 : 0,
          IDLE_MARGIN_MS,
          ...input.jobIds,
        )
      ).map(Number)
      const [nowUs = 0, admitted = 0, reason = 0, retryInUs = 0, parkFromUs = 0, intervalUs = 0] = reply
      return {
        atMs: nowUs / 1000,
        delaysMs: reply.slice(6, 6 + admitted).map((us) => us / 1000),
        stoppedBy: (['none', 'slots', 'turns', 'behind'] as const)[reason] ?? 'none',
        retryInMs: retryInUs / 1000,
        parkTurnsMs: (freshLeft) =>
          Array.from({ length: freshLeft }, (_, index) => (parkFromUs + index * intervalUs) / 1000),
      }
    },

    async hold(key, jobId, slotTtlMs) {
      await commands[HOLD_COMMAND](keyOf(key, 'slots'), jobId, slotTtlMs, IDLE_MARGIN_MS)
    },

    async release(key, jobId) {
      const [removed, slotsLeft] = (await commands[RELEASE_COMMAND](keyOf(key, 'slots'), jobId)).map(Number)
      return { removed: removed === 1, slotsLeft: slotsLeft ?? 0 }
    },

    async releaseMany(key, jobIds) {
      if (jobIds.length === 0) return { removed: 0, slotsLeft: (await heldSlots(key)).length }
      const [removed = 0, slotsLeft = 0] = (
        await commands[RELEASE_COMMAND](keyOf(key, 'slots'), ...jobIds)
      ).map(Number)
      return { removed, slotsLeft }
    },

    heldSlots,
  }
}

/** A brace would move the hash tag and split the tenant's keys across cluster slots. */
function checkedKey(key: string): string {
  if (key.length === 0 || /[{}]/.test(key)) {
    throw new RangeError(`lane key must be non-empty and free of braces, got "${key}"`)
  }
  return key
}
