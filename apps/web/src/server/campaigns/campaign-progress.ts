import { type CampaignStatus, campaignProgress } from '@fairlane/core'
import type { Executor } from '@fairlane/db'
import { campaignSendsPerSecond, type SendsInSecond } from '@fairlane/db/queries/campaign-progress'
import {
  type CampaignCounts,
  campaignMessageCounts,
  emptyCampaignCounts,
} from '@fairlane/db/queries/campaigns'

/** What the campaign page shows live: rendered by the page first, then polled from `/campaigns/:id/status`. */
export interface CampaignProgressView {
  status: CampaignStatus
  counts: CampaignCounts
  /** Messages dispatch has created so far. */
  recipientCount: number
  /** Terminal messages ÷ `recipientCount`, 0…1 (see `campaignProgress`). */
  progress: number
  /** The last 60 whole seconds, oldest first, zero-filled. */
  sendsPerSecond: SendsInSecond[]
}

/** Two indexed reads of this tenant's campaign: its counts by status and its recent sends per second. */
export async function loadCampaignProgress(
  db: Executor,
  query: {
    tenantId: string
    campaign: { id: string; status: CampaignStatus; recipientCount: number }
    now: Date
  },
): Promise<CampaignProgressView> {
  const { tenantId, campaign } = query
  const [counts, sendsPerSecond] = await Promise.all([
    campaignMessageCounts(db, { tenantId, campaignIds: [campaign.id] }),
    campaignSendsPerSecond(db, { tenantId, campaignId: campaign.id, now: query.now }),
  ])
  const campaignCounts = counts.get(campaign.id) ?? emptyCampaignCounts()
  return {
    status: campaign.status,
    counts: campaignCounts,
    recipientCount: campaign.recipientCount,
    progress: campaignProgress({ ...campaign, counts: campaignCounts }),
    sendsPerSecond,
  }
}
