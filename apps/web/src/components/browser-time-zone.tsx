'use client'

import { useRouter } from 'next/navigation'
import { useEffect } from 'react'
import { TIME_ZONE_COOKIE } from './time-zone-cookie'

const ONE_YEAR_S = 60 * 60 * 24 * 365

/**
 * Tells the server the browser's zone, in a cookie, so times are written there in it (LocalTime).
 * Renders nothing. When the cookie was missing or stale (first visit, a laptop that travelled), the
 * page is re-rendered once with it; after that the cookie and the browser agree and nothing happens.
 */
export function BrowserTimeZone() {
  const router = useRouter()
  useEffect(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
    if (!zone) return
    const current = document.cookie
      .split('; ')
      .find((pair) => pair.startsWith(`${TIME_ZONE_COOKIE}=`))
      ?.slice(TIME_ZONE_COOKIE.length + 1)
    if (current !== undefined && decodeURIComponent(current) === zone) return
    // biome-ignore lint/suspicious/noDocumentCookie: one plain preference cookie; the Cookie Store API is not in every browser.
    document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; path=/; max-age=${ONE_YEAR_S}; samesite=lax`
    router.refresh()
  }, [router])
  return null
}
