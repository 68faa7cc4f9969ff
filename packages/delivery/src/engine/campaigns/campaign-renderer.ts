import { signUnsubscribeToken, type TrackingKey, type UnsubscribeKey } from '@fairlane/core'
import { type CampaignRenderer, UndeliverableMessageError } from '@fairlane/core/delivery'
import type { Executor } from '@fairlane/db'
import {
  type CampaignContentRow,
  findCampaignContent,
  findCampaignContents,
} from '@fairlane/db/queries/campaign-content'
import { upsertTrackedLinks } from '@fairlane/db/queries/tracking'
import { renderCampaignMessage } from '@fairlane/mail/campaign'
import { trackableUrls, trackHtml } from '@fairlane/mail/tracking'
import { LRUCache } from 'lru-cache'
import { isPlatformUrl, trackingUrls } from '../tracking/tracking-urls'

export interface CampaignRendererOptions {
  db: Executor
  /** APP_URL: the unsubscribe link points at the web app's `/u/<token>`, tracking at `/t/…`. */
  appUrl: string
  unsubscribeKey: UnsubscribeKey
  /** Signs open and click URLs; without it, campaign mail goes out untracked. */
  trackingKey?: TrackingKey
  /**
   * Bytes of campaigns kept in memory (estimated: `cachedBytes`), least recently used out first. A
   * campaign is sent in turns with every other campaign sending: with ten thousand small tenants
   * sending at once, each turn of one message, a cache of 200 campaigns missed on every message (a
   * read, an HTML-to-text conversion and three template compiles each: most of the bulk worker's
   * CPU). The default holds thousands of newsletters.
   */
  cacheBytes?: number
}

export const CAMPAIGN_CACHE_BYTES = 64 * 1024 * 1024
/** The size a campaign counts for while it loads. */
const LOADING_BYTES = 1024

/** Copies of a campaign's texts a cached campaign holds: its own, the text part derived from its HTML, the compiled templates' spans. */
const TEXT_COPIES = 3
/** JavaScript strings are UTF-16: two bytes a code unit. */
const BYTES_PER_CODE_UNIT = 2

/** What a cached campaign costs, estimated from its texts (a campaign not found: the loading size). */
function cachedBytes(content: CampaignContentRow | undefined): number {
  if (!content) return LOADING_BYTES
  const codeUnits = content.subject.length + content.html.length + (content.text?.length ?? 0)
  return TEXT_COPIES * BYTES_PER_CODE_UNIT * codeUnits + LOADING_BYTES
}

/** A campaign as rendered: its content, and (tracking clicks) its links' ids, URL → id. */
interface CachedCampaign {
  content: CampaignContentRow
  linkIds: Map<string, number>
}

/**
 * Renders one recipient's copy of a campaign at send time: the campaign's content (cached: it is
 * frozen once dispatched), the contact's name and attributes as the claim read them, and a signed
 * unsubscribe link in the footer and the RFC 8058 headers. A campaign that tracks gets its links'
 * ids once per worker (one upsert of the template's literal URLs), then each copy is rewritten.
 */
export function createCampaignRenderer(options: CampaignRendererOptions): CampaignRenderer {
  const cache = new LRUCache<string, Promise<CachedCampaign | undefined>>({
    maxSize: options.cacheBytes ?? CAMPAIGN_CACHE_BYTES,
  })

  /** A campaign's content as cached: with its links' ids when it tracks clicks (one upsert). */
  const withLinks = async (
    tenantId: string,
    campaignId: string,
    content: CampaignContentRow | undefined,
  ): Promise<CachedCampaign | undefined> => {
    if (!content) return undefined
    if (!content.trackClicks || !options.trackingKey) return { content, linkIds: new Map() }
    // Only the template's literal URLs: an href built from a placeholder differs per recipient and
    // has no link of its own, so it stays as rendered.
    const urls = trackableUrls(content.html, (url) => isPlatformUrl(options.appUrl, url))
    const linkIds = await upsertTrackedLinks(options.db, { tenantId, campaignId, urls })
    return { content, linkIds }
  }

  /** The campaign's entry while it loads, resized once its content is known, dropped if it fails. */
  const remember = (campaignId: string, loading: Promise<CachedCampaign | undefined>) => {
    cache.set(campaignId, loading, { size: LOADING_BYTES })
    loading.then(
      (loaded) => {
        // Its real size once known (the same entry, if it is still there).
        if (cache.peek(campaignId) === loading) {
          cache.set(campaignId, loading, { size: cachedBytes(loaded?.content) })
        }
      },
      // A failed read is not cached: the send is retried and reads again.
      () => {
        if (cache.peek(campaignId) === loading) cache.delete(campaignId)
      },
    )
    return loading
  }

  const campaign = (tenantId: string, campaignId: string) => {
    const cached = cache.get(campaignId)
    if (cached) return cached
    return remember(
      campaignId,
      findCampaignContent(options.db, { tenantId, campaignId }).then((content) =>
        withLinks(tenantId, campaignId, content),
      ),
    )
  }

  return {
    async prefetch(wanted) {
      const missing = new Map<string, string>()
      for (const { tenantId, campaignId } of wanted) {
        if (!cache.has(campaignId)) missing.set(campaignId, tenantId)
      }
      // One campaign is read by its render as well as here.
      if (missing.size < 2) return
      const pairs = [...missing].map(([campaignId, tenantId]) => ({ tenantId, campaignId }))
      const contents = findCampaignContents(options.db, pairs)
      const loads = pairs.map(({ tenantId, campaignId }) =>
        remember(
          campaignId,
          contents.then((found) => withLinks(tenantId, campaignId, found.get(campaignId))),
        ),
      )
      // A failed read is the renders' to report: each reads its campaign again (`remember` drops it).
      await Promise.allSettled(loads)
    },

    async render(input) {
      const loaded = await campaign(input.tenantId, input.campaignId)
      if (!loaded) throw new UndeliverableMessageError(`campaign ${input.campaignId} no longer exists`)
      const token = signUnsubscribeToken(
        { tenantId: input.tenantId, contactId: input.contact.id, campaignId: input.campaignId },
        options.unsubscribeKey,
      )
      const rendered = renderCampaignMessage({
        campaign: loaded.content,
        contact: { email: input.toAddress, name: input.contact.name, attributes: input.contact.attributes },
        unsubscribeUrl: new URL(`/u/${token}`, options.appUrl).toString(),
      })
      const { trackOpens, trackClicks } = loaded.content
      if (!options.trackingKey || input.trackingDisabled || (!trackOpens && !trackClicks)) return rendered
      const urls = trackingUrls(options.appUrl, options.trackingKey, input.messageId)
      const html = trackHtml(rendered.html, {
        clickUrl: (url) => {
          const id = trackClicks ? loaded.linkIds.get(url) : undefined
          return id === undefined ? null : urls.click(id)
        },
        pixelUrl: trackOpens ? urls.pixel() : undefined,
      })
      return { ...rendered, html }
    },
  }
}
