import type { CampaignView } from '@fairlane/db/queries/campaigns'
import { formatUtc } from '@/server/campaigns/editor-state'

/** A campaign's send time as the user chose it (wall time and zone) and in UTC. */
export function scheduleText(campaign: Pick<CampaignView, 'sendAt' | 'sendAtLocal' | 'timeZone'>): {
  local: string
  utc: string
} | null {
  if (campaign.sendAt === null) return null
  const local =
    campaign.sendAtLocal && campaign.timeZone
      ? `${campaign.sendAtLocal.replace('T', ' ')} ${campaign.timeZone}`
      : ''
  return { local, utc: formatUtc(campaign.sendAt) }
}
