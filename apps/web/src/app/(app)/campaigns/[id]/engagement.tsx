import type { LinkClickRow } from '@fairlane/db/queries/campaign-engagement'
import { type DataColumn, DataTable } from '@/components/data-table'
import type { CampaignEngagement } from '@/server/campaigns/campaign-engagement'
import styles from '../campaigns.module.css'
import { OpensChart } from './opens-chart'

const LINK_COLUMNS: readonly DataColumn<LinkClickRow>[] = [
  {
    header: 'Link',
    cell: (row) => row.url,
    rowHeader: true,
    testId: 'link-url',
  },
  { header: 'Clicks', cell: (row) => row.clicks.toLocaleString('en'), align: 'end', testId: 'link-clicks' },
  {
    header: 'Unique clicks',
    cell: (row) => row.uniqueClicks.toLocaleString('en'),
    align: 'end',
    testId: 'link-unique-clicks',
  },
]

/**
 * Delivered, unique opens and clicks (bots and link scanners left out), bounces, complaints and
 * unsubscribes; the per-link click table and the opens-over-time chart. As of the page load.
 */
export function Engagement({
  engagement,
  tracking,
}: {
  engagement: CampaignEngagement
  tracking: { opens: boolean; clicks: boolean }
}) {
  const figures: [string, string, number][] = [
    ['delivered', 'Delivered', engagement.delivered],
    ['opened', 'Unique opens', engagement.opened],
    ['clicked', 'Unique clicks', engagement.clicked],
    ['bounced', 'Bounces', engagement.bounced],
    ['complained', 'Complaints', engagement.complained],
    ['unsubscribed', 'Unsubscribes', engagement.unsubscribed],
  ]
  return (
    <>
      <dl className={styles.counts}>
        {figures.map(([key, label, value]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd data-testid={`engagement-${key}`}>{value.toLocaleString('en')}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        {tracking.opens ? 'Opens are tracked' : 'Opens are not tracked'};{' '}
        {tracking.clicks ? 'clicks are tracked' : 'clicks are not tracked'}. Hits by known bots and by link
        scanners within seconds of delivery are recorded but not counted.
      </p>
      {engagement.opens.points.length > 0 ? <OpensChart opens={engagement.opens} /> : null}
      <DataTable
        label="Clicks per link"
        columns={LINK_COLUMNS}
        rows={engagement.links}
        rowKey={(row) => row.linkId}
        testId="link-clicks-table"
        empty={tracking.clicks ? <p className="muted">No tracked links yet.</p> : null}
      />
    </>
  )
}
