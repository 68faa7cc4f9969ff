'use client'

import { useRouter } from 'next/navigation'
import { useEffect } from 'react'
import { TIME_ZONE_COOKIE } from './time-zone-cookie'

const ONE_YEAR_S = 60 * 60 * 24 * 365

/**
 * Tells the server the browser's zone, in a cookie, so times are written there in it (LocalTime).
 * Renders nothing. When this page's times were written in another zone than the browser's and the
 * profile names none (a first visit, a laptop that travelled), the page is re-rendered once with the
 * cookie; after that they agree and nothing happens.
 */
export function BrowserTimeZone({ shownZone, fromProfile }: { shownZone: string; fromProfile: boolean }) {
  const router = useRouter()
  useEffect(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
    if (!zone) return
    const current = document.cookie
      .split('; ')
      .find((pair) => pair.startsWith(`${TIME_ZONE_COOKIE}=`))
      ?.slice(TIME_ZONE_COOKIE.length + 1)
    if (current === undefined || decodeURIComponent(current) !== zone) {
      // biome-ignore lint/suspicious/noDocumentCookie: one plain preference cookie; the Cookie Store API is not in every browser.
      document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; path=/; max-age=${ONE_YEAR_S}; samesite=lax`
    }
    if (!fromProfile && shownZone !== zone) router.refresh()
  }, [router, shownZone, fromProfile])
  return null
}
