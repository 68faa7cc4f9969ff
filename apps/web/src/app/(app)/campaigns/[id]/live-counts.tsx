'use client'

import type { CampaignCounts } from '@fairlane/db/queries/campaigns'
import styles from '../campaigns.module.css'
import { useLiveCampaign } from './live-campaign'
import { progressPercent, summaryWithoutMessages } from './live-progress'
import { SendsChart } from './sends-chart'

const LABELS: [keyof CampaignCounts, string][] = [
  ['pending', 'Pending'],
  ['queued', 'Queued'],
  ['sent', 'Sent'],
  ['failed', 'Failed'],
  ['suppressed', 'Suppressed'],
  ['cancelled', 'Cancelled'],
]

/** Status, progress, counts and sends per second, from the page's live view (`LiveCampaignProvider`). */
export function LiveCounts() {
  const data = useLiveCampaign()
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
