'use client'

import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts'
import type { CampaignEngagement } from '@/server/campaigns/campaign-engagement'
import styles from '../campaigns.module.css'

/** Unique opens over time (first opens per minute or hour), as a bar chart with a text summary. */
export function OpensChart({ opens }: { opens: CampaignEngagement['opens'] }) {
  const total = opens.points.reduce((sum, point) => sum + point.opens, 0)
  const summary = `${total.toLocaleString('en')} unique opens, per ${opens.unit}`
  return (
    <figure className={styles.chart} data-testid="opens-chart">
      <figcaption>
        Opens over time <span className="muted">— {summary}</span>
      </figcaption>
      <BarChart
        responsive
        className={styles.chartArea}
        data={opens.points}
        margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
        title={`Opens over time: ${summary}`}
      >
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" />
        <YAxis allowDecimals={false} width={44} />
        <Tooltip formatter={(value) => [String(value), 'Unique opens']} isAnimationActive={false} />
        <Bar dataKey="opens" fill="var(--accent)" isAnimationActive={false} />
      </BarChart>
    </figure>
  )
}
