'use client'

import type { SendsInSecond } from '@fairlane/db/queries/campaign-progress'
import { Area, AreaChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts'
import styles from '../campaigns.module.css'

/** Seconds before now, so the server's and the browser's rendering agree whatever their time zones. */
const secondsAgo = (t: number, newest: number) => `${t - newest - 1} s`

/** The campaign's sends in each of the last 60 seconds, as an area chart with a text summary. */
export function SendsChart({ points }: { points: SendsInSecond[] }) {
  const newest = points.at(-1)?.t ?? 0
  const total = points.reduce((sum, point) => sum + point.sent, 0)
  const peak = points.reduce((max, point) => Math.max(max, point.sent), 0)
  const latest = points.at(-1)?.sent ?? 0
  const summary = `${total.toLocaleString('en')} sent in the last minute; peak ${peak.toLocaleString('en')}/s, last second ${latest.toLocaleString('en')}/s`
  return (
    <figure className={styles.chart} data-testid="sends-chart">
      <figcaption>
        Sends per second <span className="muted">— {summary}</span>
      </figcaption>
      <AreaChart
        responsive
        className={styles.chartArea}
        data={points}
        margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
        title={`Sends per second: ${summary}`}
      >
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="t" interval={14} tickFormatter={(t: number) => secondsAgo(t, newest)} />
        <YAxis allowDecimals={false} width={44} />
        <Tooltip
          labelFormatter={(t) => (typeof t === 'number' ? secondsAgo(t, newest) : String(t))}
          formatter={(value) => [`${value}/s`, 'Sent']}
          isAnimationActive={false}
        />
        <Area
          type="monotone"
          dataKey="sent"
          stroke="var(--accent)"
          fill="var(--accent)"
          fillOpacity={0.15}
          isAnimationActive={false}
        />
      </AreaChart>
    </figure>
  )
}
