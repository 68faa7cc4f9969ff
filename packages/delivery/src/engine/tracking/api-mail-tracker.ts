import type { TrackingKey } from '@fairlane/core'
import type { MailTracker } from '@fairlane/core/delivery'
import type { Executor } from '@fairlane/db'
import { upsertTrackedLinks } from '@fairlane/db/queries/tracking'
import { trackableUrls, trackHtml } from '@fairlane/mail/tracking'
import { LRUCache } from 'lru-cache'
import { isPlatformUrl, trackingUrls } from './tracking-urls'

export interface ApiMailTrackerOptions {
  db: Executor
  /** APP_URL: the tracking URLs point at the web app's `/t/o/` and `/t/c/`. */
  appUrl: string
  key: TrackingKey
  /** (tenant, URL) → link id entries kept; API mail repeats the same few links (a login page, a logo). */
  cacheSize?: number
}

/**
 * Tracks API mail that asked for it: its links get tracked-link ids per (tenant, URL) — from a cache,
 * else one upsert for all the message's new URLs — and the HTML its signed URLs and pixel.
 */
export function createApiMailTracker(options: ApiMailTrackerOptions): MailTracker {
  const linkIds = new LRUCache<string, number>({ max: options.cacheSize ?? 10_000 })
  const cacheKey = (tenantId: string, url: string) => `${tenantId} ${url}`

  const idsFor = async (tenantId: string, urls: string[]): Promise<Map<string, number>> => {
    const ids = new Map<string, number>()
    const missing: string[] = []
    for (const url of urls) {
      const id = linkIds.get(cacheKey(tenantId, url))
      if (id === undefined) missing.push(url)
      else ids.set(url, id)
    }
    if (missing.length > 0) {
      const created = await upsertTrackedLinks(options.db, { tenantId, campaignId: null, urls: missing })
      for (const [url, id] of created) {
        linkIds.set(cacheKey(tenantId, url), id)
        ids.set(url, id)
      }
    }
    return ids
  }

  return {
    async track({ tenantId, messageId, html, tracking }) {
      const urls = trackingUrls(options.appUrl, options.key, messageId)
      const ids = tracking.clicks
        ? await idsFor(
            tenantId,
            trackableUrls(html, (url) => isPlatformUrl(options.appUrl, url)),
          )
        : new Map<string, number>()
      return trackHtml(html, {
        clickUrl: (url) => {
          const id = ids.get(url)
          return id === undefined ? null : urls.click(id)
        },
        pixelUrl: tracking.opens ? urls.pixel() : undefined,
      })
    },
  }
}
