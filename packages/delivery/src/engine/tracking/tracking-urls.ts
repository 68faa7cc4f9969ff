import { signTrackingToken, type TrackingKey } from '@fairlane/core'

/** Builds `APP_URL/t/o/<token>` and `APP_URL/t/c/<token>` for one message. */
export function trackingUrls(appUrl: string, key: TrackingKey, messageId: string) {
  const base = appUrl.replace(/\/+$/, '')
  return {
    pixel: () => `${base}/t/o/${signTrackingToken({ kind: 'open', messageId }, key)}`,
    click: (linkId: number) => `${base}/t/c/${signTrackingToken({ kind: 'click', messageId, linkId }, key)}`,
  }
}

/** Links of the platform's own (unsubscribe, tracking) are never tracked. */
export function isPlatformUrl(appUrl: string, url: string): boolean {
  const base = appUrl.replace(/\/+$/, '')
  return url.startsWith(`${base}/u/`) || url.startsWith(`${base}/t/`)
}
