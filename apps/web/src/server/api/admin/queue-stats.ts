import { LANES, type Lane } from '@fairlane/core'
import { laneJobCounts, oldestWaitingTimestamp, type Queues } from '@fairlane/queue'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { DEAD_LETTER_STATES } from './dead-letter-view'
import type { AdminDeps } from './deps'
import { queueCall } from './queue-access'

export interface LaneStats {
  waiting: number
  active: number
  delayed: number
  failed: number
  completed: number
  /** Age of the oldest job waiting for a worker; 0 when none waits. The first sign of a stuck lane. */
  oldestWaitingAgeMs: number
}

/** `GET /api/admin/queues` → `{ critical: LaneStats, default: LaneStats, bulk: LaneStats, deadLetter }`. */
export function getQueueStats(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const { lanes, deadLetter } = await readQueueStats(deps)
    return Response.json({ ...lanes, deadLetter }, { headers: { 'cache-control': 'no-store' } })
  })
}

/** Every lane's counts and the dead-letter queue's size, read from Redis (503 when it does not answer). */
export async function readQueueStats(
  deps: Pick<AdminDeps, 'queues' | 'clock'>,
): Promise<{ lanes: Record<Lane, LaneStats>; deadLetter: number }> {
  const queues = deps.queues()
  const now = deps.clock.now().getTime()
  const [lanes, deadLetter] = await queueCall(() =>
    Promise.all([
      Promise.all(LANES.map(async (lane) => [lane, await laneStats(queues, lane, now)] as const)),
      countDeadLetters(queues),
    ]),
  )
  return { lanes: Object.fromEntries(lanes) as Record<Lane, LaneStats>, deadLetter }
}

/** A lane's counts summed over its shards (LANE_SHARDS); its oldest waiting job is the oldest of any shard. */
async function laneStats(queues: Queues, lane: Lane, now: number): Promise<LaneStats> {
  const [counts, oldestTimestamp] = await Promise.all([
    laneJobCounts(queues.lanes, lane, 'waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'),
    oldestWaitingTimestamp(queues.lanes, lane),
  ])
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
    completed: counts.completed ?? 0,
    oldestWaitingAgeMs: oldestTimestamp === undefined ? 0 : Math.max(0, now - oldestTimestamp),
  }
}

async function countDeadLetters(queues: Queues): Promise<number> {
  const counts = await queues['dead-letter'].getJobCounts(...DEAD_LETTER_STATES)
  return Object.values(counts).reduce((sum, count) => sum + count, 0)
}
