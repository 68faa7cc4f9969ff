import type { Executor } from '@fairlane/db'
import {
  campaignEngagementCounts,
  campaignLinkClicks,
  campaignOpensOverTime,
  campaignUnsubscribes,
  type LinkClickRow,
} from '@fairlane/db/queries/campaign-engagement'
import { campaignMessageCounts, emptyCampaignCounts } from '@fairlane/db/queries/campaigns'
import { formatBucketLabel } from '../../components/local-time-format'

export interface CampaignEngagement {
  /** Accepted by the receiving server and not bounced since (complaints were delivered too). */
  delivered: number
  /** Unique, bots and link scanners left out. */
  opened: number
  clicked: number
  bounced: number
  complained: number
  unsubscribed: number
  links: LinkClickRow[]
  /** Unique opens per minute or hour; `label` is the bucket's time in the reader's zone, written on the server. */
  opens: { unit: 'minute' | 'hour'; points: { label: string; opens: number }[] }
}

/** What the campaign page's engagement section shows, read in parallel. */
export async function loadCampaignEngagement(
  db: Executor,
  query: {
    tenantId: string
    campaignId: string /** The reader's, for the chart's labels. */
    timeZone: string
  },
): Promise<CampaignEngagement> {
  const [counts, engagement, unsubscribed, links, opens] = await Promise.all([
    campaignMessageCounts(db, { tenantId: query.tenantId, campaignIds: [query.campaignId] }),
    campaignEngagementCounts(db, query),
    campaignUnsubscribes(db, query),
    campaignLinkClicks(db, query),
    campaignOpensOverTime(db, query),
  ])
  const byStatus = counts.get(query.campaignId) ?? emptyCampaignCounts()
  const label = (at: Date) => formatBucketLabel(at, opens.unit, query.timeZone)
  return {
    delivered: byStatus.sent + byStatus.complained,
    opened: engagement.opened,
    clicked: engagement.clicked,
    bounced: byStatus.bounced,
    complained: byStatus.complained,
    unsubscribed,
    links,
    opens: {
      unit: opens.unit,
      points: opens.points.map((point) => ({ label: label(point.at), opens: point.opens })),
    },
  }
}
