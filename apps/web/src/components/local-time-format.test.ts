import { describe, expect, it } from 'vitest'
import { formatInZone, formatUtcTitle, resolveReaderTimeZone } from './local-time-format'

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
