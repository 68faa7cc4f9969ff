import type { Database } from '@fairlane/db'
import { claimBulkRelease, findBulkBacklog, returnBulkRelease } from '@fairlane/db/queries/pacer'
import { createPacerState, planRelease, settleRelease } from '@fairlane/fairness'
import { laneJobOptions, SEND_JOB_NAME, type SendJobPayload, sendJobId } from '@fairlane/queue'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import type { Sql } from 'postgres'
import type { WorkerMetrics } from '../metrics'
import { createWakeSignal } from '../wake-signal'
import { withTimeout } from '../with-timeout'
import type { DepthTarget } from './depth-target'

export const PACER_TUNING = {
  /** Between ticks while there is backlog: how quickly freed queue slots are refilled. */
  tickMs: 100,
  /** Between ticks with nothing pending (a dispatch in this process also wakes the pacer at once). */
  idleTickMs: 250,
  /** How often a follower asks whether the leader is gone. */
  followerRetryMs: 1_000,
}

export interface PacerOptions {
  db: Database
  /** The pool's client: leadership is a session advisory lock held on one reserved connection. */
  sql: Sql
  bulkQueue: Pick<Queue, 'addBulk' | 'getJobCounts'>
  /** Jobs the bulk queue may hold at most (waiting + active + delayed + prioritized). */
  highWater: number
  /**
   * The depth to fill to, under `highWater`: a fraction of a second of the lane's measured sends
   * (`createDepthTarget`), so a tenant arriving behind a full queue waits that long, not longer.
   * Without it the pacer fills to `highWater`.
   */
  depthTarget?: DepthTarget
  /** How far ahead of its rate a tenant may be released (PACER_HORIZON_MS). */
  horizonMs: number
  /**
   * How many jobs of each tenant its bucket refused since the last call (`createRefusalTracker`):
   * spent from the tenant's allowance. Without it the pacer relies on its own allowance alone.
   */
  refusals?: (tenantIds: string[]) => Promise<Map<string, number>>
  /**
   * PACER_REDIS_TIMEOUT_MS: every Redis call of a tick gives up after this long. The queue connection
   * has no command timeout of its own (a stopped or paused Redis leaves commands pending forever), and
   * a hung tick is a pacer that releases nothing and never notices Redis came back.
   */
  redisTimeoutMs?: number
  tickMs?: number
  idleTickMs?: number
  followerRetryMs?: number
  logger: Logger
  metrics: Pick<WorkerMetrics, 'pacerReleased' | 'pacerTicks' | 'pacerBacklog' | 'pacerBacklogTenants'>
}

export interface Pacer {
  /** A dispatch just created pending mail: tick now rather than at the next interval. */
  wake(): void
  stop(): Promise<void>
}

/** Without `redisTimeoutMs`: the default of PACER_REDIS_TIMEOUT_MS. */
export const DEFAULT_PACER_REDIS_TIMEOUT_MS = 2_000

/** `pg_advisory_lock` key of the pacer's leadership ("fl-pacer" in ASCII, truncated to 63 bits). */
export const PACER_LOCK_KEY = 0x666c2d7061636572n & 0x7fffffffffffffffn

export type TickResult = 'released' | 'full' | 'idle'

/**
 * The bulk pacer: one leader across all worker processes (a session advisory lock on a reserved
 * connection; when that connection dies PostgreSQL frees the lock and another process takes over).
 * Each tick it reads the bulk queue's depth and, under the high-water mark, releases pending rows
 * in weighted deficit round robin (`@fairlane/fairness`), interleaved, so Redis holds a few seconds
 * of work however large the backlogs in PostgreSQL are.
 */
export function startPacer(options: PacerOptions): Pacer {
  const tickMs = options.tickMs ?? PACER_TUNING.tickMs
  const idleTickMs = options.idleTickMs ?? PACER_TUNING.idleTickMs
  const followerRetryMs = options.followerRetryMs ?? PACER_TUNING.followerRetryMs
  const signal = createWakeSignal()
  const state = createPacerState()
  let stopped = false
  let leader: Awaited<ReturnType<Sql['reserve']>> | undefined

  async function lead(): Promise<boolean> {
    if (leader) {
      try {
        await leader`select 1`
        return true
      } catch (error) {
        options.logger.warn({ err: (error as Error).message }, 'pacer lost its leadership connection')
        dropLeadership()
      }
    }
    const reserved = await options.sql.reserve()
    try {
      const [row] = await reserved<
        { locked: boolean }[]
      >`select pg_try_advisory_lock(${PACER_LOCK_KEY.toString()}::bigint) as locked`
      if (row?.locked) {
        leader = reserved
        options.logger.info('pacer is the leader')
        return true
      }
    } catch (error) {
      options.logger.warn({ err: (error as Error).message }, 'pacer leadership check failed')
    }
    reserved.release()
    return false
  }

  function dropLeadership(): void {
    const held = leader
    leader = undefined
    if (!held) return
    // Unlock explicitly on a clean stop; on a broken connection PostgreSQL has already let go.
    held`select pg_advisory_unlock(${PACER_LOCK_KEY.toString()}::bigint)`
      .catch(() => {})
      .finally(() => held.release())
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let pause = idleTickMs
      try {
        if (await lead()) {
          const result = await paceOnce(options, state)
          options.metrics.pacerTicks.inc({ result })
          pause = result === 'idle' ? idleTickMs : tickMs
        } else {
          options.metrics.pacerTicks.inc({ result: 'follower' })
          pause = followerRetryMs
        }
      } catch (error) {
        options.metrics.pacerTicks.inc({ result: 'error' })
        options.logger.warn({ err: (error as Error).message }, 'pacer tick failed; retrying')
        pause = followerRetryMs
      }
      if (stopped) break
      await signal.sleep(pause)
    }
    dropLeadership()
  }

  const running = loop()
  return {
    wake: () => signal.wake(),
    async stop() {
      stopped = true
      signal.interrupt()
      await running
    },
  }
}

/**
 * One tick: free slots = depth target − (waiting + active + delayed + prioritized); plan the release
 * over the tenants with backlog, each one's allowance less what its bucket refused since the last
 * tick; claim the rows (committed), then add their jobs. No Redis call runs inside a PostgreSQL
 * transaction: a Redis that hangs must not hold row locks and a pooled connection `idle in
 * transaction`. Each Redis call gives up after `redisTimeoutMs`. If `addBulk` fails, the claimed rows
 * go back to pending (those still `queued`); a job that reached Redis anyway finds its row claimable
 * (the send's claim accepts pending rows) and the job id is stable, so a later release adds nothing
 * twice. A pacer that dies between the claim and `addBulk` leaves `queued` rows without jobs, which
 * the sweeper publishes again.
 */
export async function paceOnce(
  options: Pick<
    PacerOptions,
    | 'db'
    | 'bulkQueue'
    | 'highWater'
    | 'depthTarget'
    | 'horizonMs'
    | 'logger'
    | 'metrics'
    | 'refusals'
    | 'redisTimeoutMs'
  >,
  state: ReturnType<typeof createPacerState>,
  now: () => number = Date.now,
): Promise<TickResult> {
  const redis = <T>(what: string, call: () => Promise<T>) =>
    withTimeout(call(), options.redisTimeoutMs ?? DEFAULT_PACER_REDIS_TIMEOUT_MS, what)
  const counts = await redis('bulk queue depth', () =>
    options.bulkQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized'),
  )
  const depth = Object.values(counts).reduce((sum, count) => sum + count, 0)
  const target = Math.min(options.highWater, options.depthTarget?.depth(now()) ?? options.highWater)
  const capacity = Math.max(0, target - depth)
  if (capacity === 0) return 'full'

  const backlog = await findBulkBacklog(options.db, { cap: options.highWater })
  options.metrics.pacerBacklogTenants.set(backlog.length)
  options.metrics.pacerBacklog.set(backlog.reduce((sum, tenant) => sum + tenant.backlog, 0))
  if (backlog.length === 0) return 'idle'
  const { refusals } = options
  const refused = refusals
    ? await redis('bucket refusals', () => refusals(backlog.map((tenant) => tenant.tenantId)))
    : new Map<string, number>()
  const tenants = backlog.map((tenant) => {
    const refusals = refused.get(tenant.tenantId)
    return refusals === undefined ? tenant : { ...tenant, refusals }
  })

  const plan = planRelease(state, { tenants, capacity, nowMs: now() }, { horizonMs: options.horizonMs })
  if (plan.order.length === 0) return 'full'

  const quotas = [...plan.counts].map(([tenantId, count]) => ({ tenantId, count }))
  const released = await options.db.transaction((tx) => claimBulkRelease(tx, quotas))
  const byTenant = new Map<string, typeof released>()
  for (const row of released) {
    const list = byTenant.get(row.tenantId)
    if (list) list.push(row)
    else byTenant.set(row.tenantId, [row])
  }
  // Jobs in the plan's interleaved order, so no tenant's batch sits in front of everyone else's.
  const jobs: Parameters<PacerOptions['bulkQueue']['addBulk']>[0] = []
  for (const tenantId of plan.order) {
    const row = byTenant.get(tenantId)?.shift()
    if (!row) continue
    const data: SendJobPayload = { v: 1, messageId: row.messageId, tenantId: row.tenantId }
    jobs.push({
      name: SEND_JOB_NAME,
      data,
      opts: { ...laneJobOptions('bulk'), jobId: sendJobId(row.messageId, row.generation) },
    })
  }
  if (jobs.length > 0) {
    try {
      await redis('bulk addBulk', () => options.bulkQueue.addBulk(jobs))
    } catch (error) {
      const returned = await returnBulkRelease(options.db, released)
      options.logger.warn(
        { err: (error as Error).message, claimed: released.length, returned },
        'pacer could not add its jobs; the claimed rows are pending again',
      )
      throw error
    }
  }

  const releasedBy = new Map<string, number>()
  for (const row of released) releasedBy.set(row.tenantId, (releasedBy.get(row.tenantId) ?? 0) + 1)
  for (const { tenantId, count } of quotas) {
    const got = releasedBy.get(tenantId) ?? 0
    if (got < count) settleRelease(state, { tenantId, planned: count, released: got })
  }
  options.metrics.pacerReleased.inc(released.length)
  options.depthTarget?.record(now(), released.length)
  return released.length > 0 ? 'released' : 'idle'
}
