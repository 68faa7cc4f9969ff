import { signUnsubscribeToken, type UnsubscribeKey } from '@fairlane/core'
import { type CampaignRenderer, UndeliverableMessageError } from '@fairlane/core/delivery'
import type { Executor } from '@fairlane/db'
import { type CampaignContentRow, findCampaignContent } from '@fairlane/db/queries/campaign-content'
import { renderCampaignMessage } from '@fairlane/mail/campaign'

export interface CampaignRendererOptions {
  db: Executor
  /** APP_URL: the unsubscribe link points at the web app's `/u/<token>`. */
  appUrl: string
  unsubscribeKey: UnsubscribeKey
  /** Campaigns kept in memory; a worker sends a handful at a time, each thousands of times. */
  cacheSize?: number
}

/**
 * Renders one recipient's copy of a campaign at send time: the campaign's content (cached: it is
 * frozen once dispatched), the contact's name and attributes as the claim read them, and a signed
 * unsubscribe link in the footer and the RFC 8058 headers.
 */
export function createCampaignRenderer(options: CampaignRendererOptions): CampaignRenderer {
  const cacheSize = options.cacheSize ?? 200
  const cache = new Map<string, Promise<CampaignContentRow | undefined>>()

  const content = (tenantId: string, campaignId: string) => {
    const cached = cache.get(campaignId)
    if (cached) return cached
    const loading = findCampaignContent(options.db, { tenantId, campaignId })
    // A failed read is not cached: the send is retried and reads again.
    loading.catch(() => cache.delete(campaignId))
    if (cache.size >= cacheSize) {
      const oldest = cache.keys().next().value
      if (oldest !== undefined) cache.delete(oldest)
    }
    cache.set(campaignId, loading)
    return loading
  }

  return {
    async render(input) {
      const campaign = await content(input.tenantId, input.campaignId)
      if (!campaign) throw new UndeliverableMessageError(`campaign ${input.campaignId} no longer exists`)
      const token = signUnsubscribeToken(
        { tenantId: input.tenantId, contactId: input.contact.id, campaignId: input.campaignId },
        options.unsubscribeKey,
      )
      return renderCampaignMessage({
        campaign,
        contact: { email: input.toAddress, name: input.contact.name, attributes: input.contact.attributes },
        unsubscribeUrl: new URL(`/u/${token}`, options.appUrl).toString(),
      })
    },
  }
}
