'use client'

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'
import { type DataColumn, DataTable } from '@/components/data-table'
import type { OverviewJson } from '@/server/api/admin/overview'
import type { LaneStats } from '@/server/api/admin/queue-stats'
import styles from './admin.module.css'
import { formatAge, formatCount, LANE_COLOURS } from './format'
import { GovernorChart } from './governor-chart'
import { usePolling } from './use-polling'

const LANES = ['critical', 'default', 'bulk'] as const
type Lane = (typeof LANES)[number]

/** A lane's row: its counts, and whether its oldest waiting job is past the lane's threshold. */
interface LaneRow {
  lane: Lane
  stats: LaneStats
  late: boolean
}

const LANE_COLUMNS: DataColumn<LaneRow>[] = [
  { header: 'Lane', rowHeader: true, cell: (row) => row.lane },
  { header: 'Waiting', cell: (row) => formatCount(row.stats.waiting) },
  { header: 'Active', cell: (row) => formatCount(row.stats.active) },
  { header: 'Delayed', cell: (row) => formatCount(row.stats.delayed) },
  { header: 'Failed', cell: (row) => formatCount(row.stats.failed) },
  {
    header: 'Oldest waiting',
    className: (row) => (row.late ? styles.alertCell : undefined),
    cell: (row) => formatAge(row.stats.oldestWaitingAgeMs),
  },
]

/** Queue depth per lane, throughput, dead letters and the relay's lag, red when a threshold is crossed. */
export function OverviewLive() {
  const { data, error } = usePolling<OverviewJson>('/api/admin/overview')
  if (!data) return <p className="muted">{error ?? 'Loading…'}</p>
  const alert = data.alerts.length > 0
  const newest = data.throughput.minutes.at(-1)?.t ?? 0
  const limitOf = (lane: Lane) =>
    lane === 'critical'
      ? data.thresholds.criticalOldestWaitingMs
      : lane === 'default'
        ? data.thresholds.defaultOldestWaitingMs
        : Number.POSITIVE_INFINITY
  return (
    <>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <section
        className={styles.state}
        data-state={alert ? 'alert' : 'ok'}
        data-testid="overview-state"
        aria-live="polite"
      >
        {alert ? (
          <>
            <strong>Needs attention</strong>
            <ul>
              {data.alerts.map((item) => (
                <li key={item.key} data-alert={item.key}>
                  {item.message}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <strong>All lanes within their thresholds</strong>
        )}
      </section>
      <dl className="stats">
        <div>
          <dt>Dead letters</dt>
          <dd data-testid="dead-letter-count" className={data.deadLetter > 0 ? styles.alertCell : undefined}>
            {formatCount(data.deadLetter)}
            <small>
              <a href="/admin/dead-letters">Inspect and replay</a>
            </small>
          </dd>
        </div>
        <div>
          <dt>Outbox lag</dt>
          <dd
            data-testid="outbox-lag"
            className={data.outboxLagMs > data.thresholds.outboxLagMs ? styles.alertCell : undefined}
          >
            {formatAge(data.outboxLagMs)}
            <small>oldest row not yet on a queue</small>
          </dd>
        </div>
        <div>
          <dt>Sent in the last minute</dt>
          <dd>
            {formatCount(LANES.reduce((sum, lane) => sum + (data.throughput.minutes.at(-2)?.[lane] ?? 0), 0))}
            <small>the last whole minute, all lanes</small>
          </dd>
        </div>
      </dl>
      <section className="card" aria-labelledby="lanes-title">
        <h2 id="lanes-title">Lanes</h2>
        <DataTable
          label="Lanes"
          testId="lanes-table"
          columns={LANE_COLUMNS}
          rows={LANES.map((lane) => {
            const stats = data.lanes[lane]
            return { lane, stats, late: stats.oldestWaitingAgeMs > limitOf(lane) }
          })}
          rowKey={(row) => row.lane}
          rowData={(row) => ({ 'data-lane': row.lane, 'data-state': row.late ? 'alert' : 'ok' })}
        />
      </section>
      <section className="card" aria-labelledby="throughput-title">
        <figure className={styles.chart} data-testid="throughput-chart">
          <figcaption id="throughput-title">Sent per minute, last 15 minutes</figcaption>
          <BarChart
            responsive
            className={styles.chartArea}
            data={data.throughput.minutes}
            margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          >
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="t"
              tickFormatter={(t: number) => (t === newest ? 'now' : `${(t - newest) / 60} min`)}
            />
            <YAxis allowDecimals={false} width={52} />
            <Tooltip
              labelFormatter={(t) => (typeof t === 'number' ? `${(t - newest) / 60} min` : String(t))}
              isAnimationActive={false}
            />
            <Legend />
            {LANES.map((lane) => (
              <Bar
                key={lane}
                dataKey={lane}
                stackId="lanes"
                fill={LANE_COLOURS[lane]}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </figure>
      </section>
      <GovernorChart governor={data.bulkGovernor} now={Date.parse(data.at)} />
    </>
  )
}
