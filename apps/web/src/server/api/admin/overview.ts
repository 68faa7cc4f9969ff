import { LANES, type Lane } from '@fairlane/core'
import { type LaneMinute, outboxLagMs, sentPerMinuteByLane } from '@fairlane/db/queries/admin-overview'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import { type BulkGovernorView, readBulkGovernor } from './bulk-governor'
import type { AdminDeps } from './deps'
import { OVERVIEW_THRESHOLDS, type OverviewAlert, overviewAlerts } from './overview-alerts'
import { type LaneStats, readQueueStats } from './queue-stats'

/** The throughput chart's span. */
export const THROUGHPUT_MINUTES = 15

export type ThroughputMinute = { t: number } & Record<Lane, number>

/** The body of `GET /api/admin/overview`, the console's first page. */
export interface OverviewJson {
  lanes: Record<Lane, LaneStats>
  deadLetter: number
  outboxLagMs: number
  throughput: { minutes: ThroughputMinute[] }
  alerts: OverviewAlert[]
  thresholds: typeof OVERVIEW_THRESHOLDS
  bulkGovernor: BulkGovernorView
  at: string
}

/**
 * `GET /api/admin/overview` → `{ lanes, deadLetter, outboxLagMs, throughput: { minutes: [{ t, critical,
 * default, bulk }] }, alerts: [{ key, message }], thresholds, bulkGovernor: { factor, steering, steps } }`:
 * the console's first page in one call.
 */
export function getOverview(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const now = deps.clock.now()
    const [queues, lagMs, throughput, bulkGovernor] = await Promise.all([
      readQueueStats(deps),
      outboxLagMs(deps.db, { now }),
      throughputByMinute(deps, now),
      readBulkGovernor(deps),
    ])
    const alerts = overviewAlerts({ ...queues, outboxLagMs: lagMs })
    return Response.json(
      {
        lanes: queues.lanes,
        deadLetter: queues.deadLetter,
        outboxLagMs: lagMs,
        throughput: { minutes: throughput },
        alerts,
        thresholds: OVERVIEW_THRESHOLDS,
        bulkGovernor,
        at: now.toISOString(),
      } satisfies OverviewJson,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}

/**
 * Finished minutes do not change (a message is stamped `sent_at` as it is sent), so they are read once
 * per minute and kept; each poll reads only the minute in progress. Per database client, so tests and
 * processes never share one.
 */
const finishedMinutes = new WeakMap<object, { minute: number; rows: LaneMinute[] }>()

async function throughputByMinute(deps: Pick<AdminDeps, 'db'>, now: Date): Promise<ThroughputMinute[]> {
  const current = Math.floor(now.getTime() / 60_000) * 60
  const first = current - (THROUGHPUT_MINUTES - 1) * 60
  let cached = finishedMinutes.get(deps.db)
  if (cached?.minute !== current) {
    const rows = await sentPerMinuteByLane(deps.db, { since: new Date(first * 1000) })
    cached = { minute: current, rows: rows.filter((row) => row.t < current) }
    finishedMinutes.set(deps.db, cached)
  }
  const latest = await sentPerMinuteByLane(deps.db, { since: new Date(current * 1000) })
  const minutes: ThroughputMinute[] = []
  for (let t = first; t <= current; t += 60) {
    minutes.push({ t, ...(Object.fromEntries(LANES.map((lane) => [lane, 0])) as Record<Lane, number>) })
  }
  for (const row of [...cached.rows, ...latest]) {
    const minute = minutes[(row.t - first) / 60]
    if (minute) minute[row.lane] += row.sent
  }
  return minutes
}
