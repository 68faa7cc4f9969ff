import { describe, expect, it } from 'vitest'
import {
  formatBucketLabel,
  formatInZone,
  formatUtcTitle,
  resolveReaderTimeZone,
  startOfDayInZone,
} from './local-time-format'

describe('resolveReaderTimeZone', () => {
  it('prefers the profile zone to the browser one', () => {
    expect(resolveReaderTimeZone({ profile: 'Asia/Tokyo', browser: 'Europe/Paris' })).toEqual({
      zone: 'Asia/Tokyo',
      source: 'profile',
    })
  })

  it('uses the browser zone when the profile has none', () => {
    expect(resolveReaderTimeZone({ profile: null, browser: 'America/New_York' })).toEqual({
      zone: 'America/New_York',
      source: 'browser',
    })
  })

  it('refuses invalid names from either side, falling through to the next', () => {
    expect(resolveReaderTimeZone({ profile: 'Mars/Base', browser: 'Europe/Paris' })).toEqual({
      zone: 'Europe/Paris',
      source: 'browser',
    })
    expect(resolveReaderTimeZone({ profile: 'UTC+7', browser: '<script>' })).toEqual({
      zone: 'UTC',
      source: 'utc',
    })
  })

  it('falls back to UTC before the browser has said', () => {
    expect(resolveReaderTimeZone({ profile: undefined, browser: '' })).toEqual({ zone: 'UTC', source: 'utc' })
  })
})

describe('formatInZone', () => {
  const instant = new Date('2026-12-05T05:09:16.500Z')

  it('writes the wall time in the zone with its name', () => {
    expect(formatInZone(instant, 'Asia/Tokyo')).toBe('5 Dec 2026, 14:09 GMT+9')
    expect(formatInZone(instant, 'UTC')).toBe('5 Dec 2026, 05:09 UTC')
  })

  it('crosses the date line with the zone', () => {
    expect(formatInZone(instant, 'America/Los_Angeles')).toBe('4 Dec 2026, 21:09 GMT-8')
    expect(formatInZone(instant, 'Asia/Kolkata')).toBe('5 Dec 2026, 10:39 GMT+5:30')
  })

  it('follows daylight saving time', () => {
    expect(formatInZone(new Date('2026-07-01T12:00:00Z'), 'Europe/Paris')).toBe('1 Jul 2026, 14:00 CEST')
    expect(formatInZone(new Date('2026-01-01T12:00:00Z'), 'Europe/Paris')).toBe('1 Jan 2026, 13:00 CET')
  })

  it('shows midnight as 00, not 24', () => {
    expect(formatInZone(new Date('2026-12-05T15:00:00Z'), 'Asia/Tokyo')).toBe('6 Dec 2026, 00:00 GMT+9')
  })

  it('adds seconds when asked', () => {
    expect(formatInZone(instant, 'Asia/Tokyo', { seconds: true })).toBe('5 Dec 2026, 14:09:16 GMT+9')
  })
})

describe('formatUtcTitle', () => {
  it('is the UTC time to the second', () => {
    expect(formatUtcTitle(new Date('2026-12-05T05:09:16.500Z'))).toBe('5 Dec 2026, 05:09:16 UTC')
  })
})

describe('startOfDayInZone', () => {
  const now = new Date('2026-12-05T05:09:16Z')

  it('is midnight of the reader’s date, which may be another UTC day', () => {
    expect(startOfDayInZone(now, 'UTC').toISOString()).toBe('2026-12-05T00:00:00.000Z')
    expect(startOfDayInZone(now, 'Asia/Tokyo').toISOString()).toBe('2026-12-04T15:00:00.000Z')
    expect(startOfDayInZone(now, 'America/New_York').toISOString()).toBe('2026-12-05T05:00:00.000Z')
    expect(startOfDayInZone(now, 'America/Los_Angeles').toISOString()).toBe('2026-12-04T08:00:00.000Z')
    expect(startOfDayInZone(now, 'Asia/Kolkata').toISOString()).toBe('2026-12-04T18:30:00.000Z')
  })

  it('uses the offset midnight had on a day the clocks change', () => {
    // Paris moves to summer time at 01:00 UTC on 29 March 2026; midnight was still winter time.
    expect(startOfDayInZone(new Date('2026-03-29T12:00:00Z'), 'Europe/Paris').toISOString()).toBe(
      '2026-03-28T23:00:00.000Z',
    )
  })

  it('starts a day whose midnight is skipped at the end of the gap', () => {
    // Santiago springs forward at 24:00 on 5 September 2026: that day begins at 01:00 (UTC-3).
    expect(startOfDayInZone(new Date('2026-09-06T15:00:00Z'), 'America/Santiago').toISOString()).toBe(
      '2026-09-06T04:00:00.000Z',
    )
  })
})

describe('formatBucketLabel', () => {
  const at = new Date('2026-12-05T05:00:00Z')

  it('labels minutes and hours in the zone', () => {
    expect(formatBucketLabel(new Date('2026-12-05T05:07:00Z'), 'minute', 'Asia/Tokyo')).toBe('14:07 GMT+9')
    expect(formatBucketLabel(at, 'hour', 'UTC')).toBe('5 Dec 05h UTC')
    expect(formatBucketLabel(at, 'hour', 'America/Los_Angeles')).toBe('4 Dec 21h GMT-8')
  })

  it('keeps the minutes of an hour bucket in a zone off by half an hour', () => {
    expect(formatBucketLabel(at, 'hour', 'Asia/Kolkata')).toBe('5 Dec 10:30 GMT+5:30')
  })
})
