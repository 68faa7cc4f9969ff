import { and, eq, inArray } from 'drizzle-orm'
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

/** The columns of a `CampaignContentRow`. */
const CONTENT_COLUMNS = {
  subject: campaigns.subject,
  html: campaigns.html,
  text: campaigns.text,
  trackOpens: campaigns.trackOpens,
  trackClicks: campaigns.trackClicks,
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
    .select(CONTENT_COLUMNS)
    .from(campaigns)
    .where(and(eq(campaigns.tenantId, query.tenantId), eq(campaigns.id, query.campaignId)))
  return row
}

/**
 * Several campaigns' content in one read (a bulk job's messages may belong to dozens of campaigns,
 * each new to the worker), by campaign id; a campaign of another tenant than the one asked with is
 * left out, as `findCampaignContent` would not find it.
 */
export async function findCampaignContents(
  db: Executor,
  wanted: ReadonlyArray<{ tenantId: string; campaignId: string }>,
): Promise<Map<string, CampaignContentRow>> {
  const found = new Map<string, CampaignContentRow>()
  if (wanted.length === 0) return found
  const rows = await db
    .select({
      id: campaigns.id,
      tenantId: campaigns.tenantId,
      ...CONTENT_COLUMNS,
    })
    .from(campaigns)
    .where(inArray(campaigns.id, [...new Set(wanted.map((item) => item.campaignId))]))
  const tenantOf = new Map(wanted.map((item) => [item.campaignId, item.tenantId]))
  for (const { id, tenantId, ...content } of rows) {
    if (tenantOf.get(id) === tenantId) found.set(id, content)
  }
  return found
}
