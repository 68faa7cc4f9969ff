import { and, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { campaigns } from '../schema'

export interface CampaignContentRow {
  subject: string
  html: string
  text: string | null
  /** The campaign's tracking switches (the tenant's privacy switch is read with each claim). */
  trackOpens: boolean
  trackClicks: boolean
}

/**
 * What a campaign's mail says, for rendering at send time. Content is frozen once dispatch begins
 * (the editor refuses changes), so workers may cache it for the campaign's life.
 */
export async function findCampaignContent(
  db: Executor,
  query: { tenantId: string; campaignId: string },
): Promise<CampaignContentRow | undefined> {
  const [row] = await db
    .select({
      subject: campaigns.subject,
      html: campaigns.html,
      text: campaigns.text,
      trackOpens: campaigns.trackOpens,
      trackClicks: campaigns.trackClicks,
    })
    .from(campaigns)
    .where(and(eq(campaigns.tenantId, query.tenantId), eq(campaigns.id, query.campaignId)))
  return row
}
