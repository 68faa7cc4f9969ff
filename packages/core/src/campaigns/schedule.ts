import { DateTime, IANAZone } from 'luxon'

/**
 * Turning "9:00 on 24 December in Asia/Ho_Chi_Minh" into the instant to send. Pure: the caller
 * passes `now`. A wall time that does not exist (the hour skipped when clocks go forward) or exists
 * twice (the hour repeated when they go back) is reported, never silently shifted: a newsletter
 * that goes out an hour early or late is exactly the kind of surprise a scheduler must not make.
 */

export type Fold = 'earlier' | 'later'

export interface LocalSendTime {
  /** Wall time as typed, `YYYY-MM-DDTHH:mm`. */
  local: string
  /** IANA zone name, e.g. `Europe/Berlin`. */
  timeZone: string
  /** Which of the two instants of a repeated wall time the user chose. */
  fold?: Fold | undefined
}

export type SendAtResolution =
  | { kind: 'ok'; sendAt: Date; utcOffset: string }
  | {
      kind: 'gap'
      /** The first wall time after the skipped hour, and its instant. */
      suggestion: { local: string; sendAt: Date; utcOffset: string }
      gapMinutes: number
    }
  | {
      kind: 'overlap'
      earlier: Date
      later: Date
      earlierOffset: string
      laterOffset: string
    }
  | { kind: 'invalid-local' }
  | { kind: 'invalid-zone' }
  | { kind: 'in-the-past'; sendAt: Date }

export const LOCAL_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/

const MINUTE_MS = 60_000
/** Wider than any real offset change (the largest, Samoa 2011, was 24 h; ±36 h covers it). */
const SEARCH_WINDOW_MS = 36 * 60 * MINUTE_MS

export function isValidTimeZone(timeZone: string): boolean {
  // Offsets like "UTC+7" are not zones a user picks; they also have no DST to reason about.
  return timeZone.length > 0 && IANAZone.isValidZone(timeZone) && !/^(UTC|GMT)?[+-]/i.test(timeZone)
}

export function resolveSendAt(input: LocalSendTime, now: Date): SendAtResolution {
  if (!isValidTimeZone(input.timeZone)) return { kind: 'invalid-zone' }
  const wall = parseWallTime(input.local)
  if (wall === null) return { kind: 'invalid-local' }
  const zone = IANAZone.create(input.timeZone)
  const offsetAt = (ms: number) => zone.offset(ms)

  // Each offset the zone uses near this wall time gives one candidate instant; a candidate is real
  // when the zone indeed shows that offset at that instant.
  const offsets = new Set([
    offsetAt(wall - SEARCH_WINDOW_MS),
    offsetAt(wall),
    offsetAt(wall + SEARCH_WINDOW_MS),
  ])
  const instants = [...offsets]
    .map((offset) => wall - offset * MINUTE_MS)
    .filter((ms) => offsetAt(ms) * MINUTE_MS === wall - ms)
    .sort((a, b) => a - b)

  const finish = (ms: number): SendAtResolution => {
    const sendAt = new Date(ms)
    if (ms <= now.getTime()) return { kind: 'in-the-past', sendAt }
    return { kind: 'ok', sendAt, utcOffset: formatOffset(offsetAt(ms)) }
  }

  const [first, second] = instants
  if (first === undefined) return gap(wall, offsetAt, input.timeZone)
  if (second === undefined) return finish(first)
  if (input.fold === 'earlier') return finish(first)
  if (input.fold === 'later') return finish(second)
  return {
    kind: 'overlap',
    earlier: new Date(first),
    later: new Date(second),
    earlierOffset: formatOffset(offsetAt(first)),
    laterOffset: formatOffset(offsetAt(second)),
  }
}

/** `+07:00`, `-04:00`, `+05:45`. */
export function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** The wall time of an instant in a zone, as `YYYY-MM-DDTHH:mm`. */
export function localTimeOf(instant: Date, timeZone: string): string {
  return DateTime.fromJSDate(instant, { zone: timeZone }).toFormat("yyyy-MM-dd'T'HH:mm")
}

/** The wall time typed by the user as if it were UTC, in ms; null when it is not a real calendar time. */
function parseWallTime(local: string): number | null {
  const match = LOCAL_TIME_PATTERN.exec(local)
  if (!match) return null
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ]
  const ms = Date.UTC(year, month - 1, day, hour, minute)
  const check = new Date(ms)
  // Date.UTC rolls 30 February into March; a rolled value means the date does not exist.
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) return null
  return ms
}

/**
 * The wall time was skipped. The instants `wall - offsetAfter` and `wall - offsetBefore` bracket
 * the transition; a binary search over whole minutes finds it, and the wall time at that instant is
 * the first one that exists after the gap (03:00 when clocks jump from 02:00 to 03:00).
 */
function gap(wall: number, offsetAt: (ms: number) => number, timeZone: string): SendAtResolution {
  let low = wall - SEARCH_WINDOW_MS
  let high = wall + SEARCH_WINDOW_MS
  const before = offsetAt(low)
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS
    if (offsetAt(middle) === before) low = middle
    else high = middle
  }
  const after = offsetAt(high)
  const sendAt = new Date(high)
  return {
    kind: 'gap',
    suggestion: { local: localTimeOf(sendAt, timeZone), sendAt, utcOffset: formatOffset(after) },
    gapMinutes: after - before,
  }
}

function pad(value: number): string {
  return String(value).padStart(2, '0')
}
