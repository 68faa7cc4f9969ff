'use client'

import type { CampaignCounts } from '@fairlane/db/queries/campaigns'
import { useEffect, useState } from 'react'
import type { CampaignProgressView } from '@/server/campaigns/campaign-progress'
import styles from '../campaigns.module.css'
import { pollIntervalMs, progressPercent, summaryWithoutMessages } from './live-progress'
import { SendsChart } from './sends-chart'

const LABELS: [keyof CampaignCounts, string][] = [
  ['pending', 'Pending'],
  ['queued', 'Queued'],
  ['sent', 'Sent'],
  ['failed', 'Failed'],
  ['suppressed', 'Suppressed'],
  ['cancelled', 'Cancelled'],
]

/**
 * Status, progress, counts and sends per second, refreshed from `/campaigns/:id/status` while the
 * page is open and visible: every second while mail goes out, until the campaign is done (see
 * `pollIntervalMs`). The server-rendered numbers show first, and stay without JavaScript.
 */
export function LiveCounts({ campaignId, initial }: { campaignId: string; initial: CampaignProgressView }) {
  const [data, setData] = useState(initial)
  const intervalMs = pollIntervalMs(data)
  useEffect(() => {
    if (intervalMs === null) return
    let stopped = false
    const poll = async () => {
      if (document.visibilityState !== 'visible') return
      try {
        const response = await fetch(`/campaigns/${campaignId}/status`, { cache: 'no-store' })
        if (response.ok && !stopped) setData(await response.json())
      } catch {
        // A failed poll (offline, deploy) is retried on the next tick; the last numbers stay shown.
      }
    }
    const timer = setInterval(() => {
      poll().catch(() => {})
    }, intervalMs)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [campaignId, intervalMs])
  const percent = progressPercent(data.progress)
  const { sent, failed, suppressed, cancelled } = data.counts
  const terminal = sent + failed + suppressed + cancelled
  const doneText = `${terminal.toLocaleString('en')} of ${data.recipientCount.toLocaleString('en')} messages done`
  return (
    <div className={styles.live}>
      <div>
        {/* Only the status is announced: the numbers change every second while sending. */}
        <p aria-live="polite">
          Status:{' '}
          <span className={`badge badge-${data.status}`} data-testid="campaign-status">
            {data.status}
          </span>
        </p>
        <div className={styles.progressRow}>
          <div
            className={styles.progressTrack}
            role="progressbar"
            aria-labelledby="progress-title"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-valuetext={data.recipientCount > 0 ? `${percent}% (${doneText})` : `${percent}%`}
            data-testid="campaign-progress"
            data-progress={percent}
          >
            <div className={styles.progressFill} style={{ width: `${percent}%` }} />
          </div>
          <span className={styles.percent}>{percent}%</span>
        </div>
        <p className="muted" data-testid="campaign-summary">
          {data.recipientCount > 0 ? doneText : summaryWithoutMessages(data.status)}
        </p>
        <dl className={styles.counts}>
          {LABELS.map(([key, label]) => (
            <div key={key}>
              <dt>{label}</dt>
              <dd data-testid={`count-${key}`}>{data.counts[key]}</dd>
            </div>
          ))}
        </dl>
      </div>
      {data.counts.sent > 0 ? <SendsChart points={data.sendsPerSecond} /> : null}
    </div>
  )
}
