import 'server-only'
import { cookies } from 'next/headers'
import { cache } from 'react'
import { type ReaderTimeZone, resolveReaderTimeZone, TIME_ZONE_COOKIE } from '../components/local-time-format'
import { getTenantSession } from './auth/session'

/**
 * The zone this request's times are shown in, once per request: the signed-in user's profile zone,
 * else the browser's (the cookie `BrowserTimeZone` keeps current), else UTC. Formatting on the server
 * with the zone known here is what keeps server and browser HTML identical (no hydration mismatch).
 */
export const getReaderTimeZone = cache(async (): Promise<ReaderTimeZone> => {
  const [session, jar] = await Promise.all([getTenantSession(), cookies()])
  return resolveReaderTimeZone({ profile: session?.timeZone, browser: jar.get(TIME_ZONE_COOKIE)?.value })
})
