'use client'

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'
import type { BulkGovernorView } from '../../server/api/admin/bulk-governor'
import styles from './admin.module.css'
import { LANE_COLOURS } from './format'

const percent = (factor: number) => `${Math.round(factor * 100)} %`
const SPAN_MS = 15 * 60_000
const TICKS = [15, 10, 5, 0]

/**
 * The bulk governor: the share of its depth and workers the bulk lane runs at, cut while login codes
 * are slower than their target (BULK_GOVERNOR_TARGET_MS), over the last 15 minutes.
 */
export function GovernorChart({ governor, now }: { governor: BulkGovernorView; now: number }) {
  const state = !governor.steering
    ? 'No worker is steering: bulk runs at full speed.'
    : governor.factor < 1
      ? `Bulk yields to login codes: it runs at ${percent(governor.factor)} of its depth and workers.`
      : 'Login codes are within their target: bulk runs at full speed.'
  return (
    <section className="card" aria-labelledby="governor-title">
      <figure className={styles.chart} data-testid="governor-chart">
        <figcaption id="governor-title">Bulk governor, last 15 minutes</figcaption>
        <p data-testid="governor-state" data-factor={governor.factor}>
          {state}
        </p>
        {governor.steps.length > 0 ? (
          <LineChart
            responsive
            className={styles.chartArea}
            data={governor.steps}
            margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          >
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="t"
              type="number"
              scale="time"
              domain={[now - SPAN_MS, now]}
              ticks={TICKS.map((minutes) => now - minutes * 60_000)}
              tickFormatter={(t: number) => (t >= now ? 'now' : `${Math.round((t - now) / 60_000)} min`)}
            />
            <YAxis domain={[0, 1]} tickFormatter={percent} width={64} />
            <Tooltip
              isAnimationActive={false}
              labelFormatter={(t) => (typeof t === 'number' ? new Date(t).toLocaleTimeString('en-GB') : '')}
              formatter={(value, _name, item) => {
                const p95 = (item.payload as { p95Ms: number | null }).p95Ms
                return [
                  `${percent(Number(value))}${p95 === null ? '' : ` (login codes p95 ${Math.round(p95)} ms)`}`,
                  'bulk runs at',
                ]
              }}
            />
            <Line
              type="stepAfter"
              dataKey="factor"
              stroke={LANE_COLOURS.bulk}
              dot={false}
              isAnimationActive={false}
            />
          </LineChart>
        ) : null}
      </figure>
    </section>
  )
}
