import { isValidTimeZone } from '@fairlane/core'

export { TIME_ZONE_COOKIE } from './time-zone-cookie'

/**
 * Times in the reader's zone, as pure functions (the component and the server's zone lookup wrap
 * them). The zone is the profile's when set, else the one the browser reported in this cookie, else
 * UTC (a first visit before the browser has said; the page refreshes once it has).
 */
export type ReaderTimeZone = { zone: string; source: 'profile' | 'browser' | 'utc' }

export function resolveReaderTimeZone(input: {
  profile: string | null | undefined
  browser: string | null | undefined
}): ReaderTimeZone {
  // A stored zone the runtime no longer knows, or a cookie anyone could write, falls through.
  if (input.profile && isValidTimeZone(input.profile)) return { zone: input.profile, source: 'profile' }
  if (input.browser && isValidTimeZone(input.browser)) return { zone: input.browser, source: 'browser' }
  return { zone: 'UTC', source: 'utc' }
}

const BASE_OPTIONS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string, seconds: boolean): Intl.DateTimeFormat {
  const key = `${zone} ${seconds}`
  let found = formatters.get(key)
  if (!found) {
    // en-GB whatever the zone: day before month, 24-hour clock, as the app has always written times.
    found = new Intl.DateTimeFormat('en-GB', {
      ...BASE_OPTIONS,
      ...(seconds ? { second: '2-digit' } : {}),
      timeZone: zone,
    })
    formatters.set(key, found)
  }
  return found
}

/** `5 Dec 2026, 14:09 GMT+9`: the instant's wall time in `zone`, with the zone's short name. */
export function formatInZone(instant: Date, zone: string, options: { seconds?: boolean } = {}): string {
  return formatter(zone, options.seconds === true).format(instant)
}

/** `5 Dec 2026, 05:09:16 UTC`: the hover text, to the second, for comparing with logs and the API. */
export function formatUtcTitle(instant: Date): string {
  return formatInZone(instant, 'UTC', { seconds: true })
}

const wallFormatters = new Map<string, Intl.DateTimeFormat>()

/** The wall clock in `zone` at `instantMs`, read back as if it were UTC (milliseconds dropped). */
function wallClockAsUtc(instantMs: number, zone: string): number {
  let found = wallFormatters.get(zone)
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
      timeZone: zone,
    })
    wallFormatters.set(zone, found)
  }
  const parts = found.formatToParts(instantMs)
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value)
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'))
}

/**
 * The instant the reader's day began: midnight of `now`'s date in `zone` ("sent today" counts from
 * it). Where a zone skips midnight (a daylight-saving change at 00:00), the day starts at the first
 * instant after the gap.
 */
export function startOfDayInZone(now: Date, zone: string): Date {
  const wall = wallClockAsUtc(now.getTime(), zone)
  const midnight = Math.floor(wall / 86_400_000) * 86_400_000
  // The zone's offset at midnight may differ from now's (a change earlier today): correct once more.
  const first = midnight - (wallClockAsUtc(midnight, zone) - midnight)
  const start = midnight - (wallClockAsUtc(first, zone) - first)
  // Inside a gap the arithmetic lands before the change, still on the day before: step over it.
  const short = midnight - wallClockAsUtc(start, zone)
  return new Date(short > 0 ? start + short : start)
}

/**
 * A chart bucket's label in `zone`: `14:05 GMT+9` for minutes, `5 Dec 14h GMT+9` for hours. Hours
 * are bucketed in UTC, so a zone half an hour off UTC labels them `10:30`-style rather than `10h`.
 */
export function formatBucketLabel(at: Date, unit: 'minute' | 'hour', zone: string): string {
  const parts = formatter(zone, false).formatToParts(at)
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ''
  const zoneName = part('timeZoneName')
  if (unit === 'minute') return `${part('hour')}:${part('minute')} ${zoneName}`
  const clock = part('minute') === '00' ? `${part('hour')}h` : `${part('hour')}:${part('minute')}`
  return `${part('day')} ${part('month')} ${clock} ${zoneName}`
}
