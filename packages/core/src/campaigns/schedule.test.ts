import { describe, expect, it } from 'vitest'
import { formatOffset, isValidTimeZone, localTimeOf, resolveSendAt } from './schedule'

const now = new Date('2026-01-01T00:00:00Z')

describe('resolveSendAt', () => {
  it('converts an ordinary wall time with the offset in force then', () => {
    expect(resolveSendAt({ local: '2026-12-24T09:00', timeZone: 'Europe/Berlin' }, now)).toEqual({
      kind: 'ok',
      sendAt: new Date('2026-12-24T08:00:00Z'),
      utcOffset: '+01:00',
    })
    expect(resolveSendAt({ local: '2026-07-01T09:00', timeZone: 'Europe/Berlin' }, now)).toEqual({
      kind: 'ok',
      sendAt: new Date('2026-07-01T07:00:00Z'),
      utcOffset: '+02:00',
    })
  })

  it('handles a zone without DST (Asia/Ho_Chi_Minh, always +07:00)', () => {
    for (const local of ['2026-03-29T02:30', '2026-10-25T02:30', '2026-12-24T09:00']) {
      const result = resolveSendAt({ local, timeZone: 'Asia/Ho_Chi_Minh' }, now)
      expect(result.kind).toBe('ok')
      if (result.kind !== 'ok') continue
      expect(result.utcOffset).toBe('+07:00')
      expect(result.sendAt.getTime()).toBe(Date.parse(`${local}:00+07:00`))
    }
  })

  it('reports a wall time skipped by DST (Berlin) with the first valid time after the gap', () => {
    const result = resolveSendAt({ local: '2026-03-29T02:30', timeZone: 'Europe/Berlin' }, now)
    expect(result).toEqual({
      kind: 'gap',
      suggestion: {
        local: '2026-03-29T03:00',
        sendAt: new Date('2026-03-29T01:00:00Z'),
        utcOffset: '+02:00',
      },
      gapMinutes: 60,
    })
  })

  it('reports a wall time skipped by DST (New York)', () => {
    const result = resolveSendAt({ local: '2026-03-08T02:30', timeZone: 'America/New_York' }, now)
    expect(result).toEqual({
      kind: 'gap',
      suggestion: {
        local: '2026-03-08T03:00',
        sendAt: new Date('2026-03-08T07:00:00Z'),
        utcOffset: '-04:00',
      },
      gapMinutes: 60,
    })
  })

  it('reports a wall time that happens twice (Berlin) and resolves it only with a fold', () => {
    const input = { local: '2026-10-25T02:30', timeZone: 'Europe/Berlin' }
    expect(resolveSendAt(input, now)).toEqual({
      kind: 'overlap',
      earlier: new Date('2026-10-25T00:30:00Z'),
      later: new Date('2026-10-25T01:30:00Z'),
      earlierOffset: '+02:00',
      laterOffset: '+01:00',
    })
    expect(resolveSendAt({ ...input, fold: 'earlier' }, now)).toEqual({
      kind: 'ok',
      sendAt: new Date('2026-10-25T00:30:00Z'),
      utcOffset: '+02:00',
    })
    expect(resolveSendAt({ ...input, fold: 'later' }, now)).toEqual({
      kind: 'ok',
      sendAt: new Date('2026-10-25T01:30:00Z'),
      utcOffset: '+01:00',
    })
  })

  it('reports a wall time that happens twice (New York)', () => {
    const result = resolveSendAt({ local: '2026-11-01T01:30', timeZone: 'America/New_York' }, now)
    expect(result).toEqual({
      kind: 'overlap',
      earlier: new Date('2026-11-01T05:30:00Z'),
      later: new Date('2026-11-01T06:30:00Z'),
      earlierOffset: '-04:00',
      laterOffset: '-05:00',
    })
  })

  it('ignores a fold where the time is not ambiguous', () => {
    const result = resolveSendAt({ local: '2026-12-24T09:00', timeZone: 'Europe/Berlin', fold: 'later' }, now)
    expect(result).toMatchObject({ kind: 'ok', sendAt: new Date('2026-12-24T08:00:00Z') })
  })

  it('refuses unknown zones and raw offsets', () => {
    expect(resolveSendAt({ local: '2026-12-24T09:00', timeZone: 'Mars/Olympus_Mons' }, now)).toEqual({
      kind: 'invalid-zone',
    })
    expect(resolveSendAt({ local: '2026-12-24T09:00', timeZone: '' }, now)).toEqual({ kind: 'invalid-zone' })
    expect(isValidTimeZone('UTC+7')).toBe(false)
    expect(isValidTimeZone('UTC')).toBe(true)
  })

  it('refuses malformed and impossible wall times', () => {
    for (const local of [
      '2026-02-30T09:00',
      '2026-12-24 09:00',
      '2026-12-24T24:00',
      '2026-12-24T09:00:00',
      'x',
    ]) {
      expect(resolveSendAt({ local, timeZone: 'Europe/Berlin' }, now)).toEqual({ kind: 'invalid-local' })
    }
  })

  it('says when the time has already passed', () => {
    const result = resolveSendAt({ local: '2025-12-31T23:00', timeZone: 'UTC' }, now)
    expect(result).toEqual({ kind: 'in-the-past', sendAt: new Date('2025-12-31T23:00:00Z') })
    expect(resolveSendAt({ local: '2026-01-01T00:00', timeZone: 'UTC' }, now).kind).toBe('in-the-past')
  })

  it('handles half-hour zones (Asia/Kolkata) and the southern hemisphere (Australia/Sydney gap in October)', () => {
    expect(resolveSendAt({ local: '2026-06-01T10:00', timeZone: 'Asia/Kolkata' }, now)).toMatchObject({
      kind: 'ok',
      utcOffset: '+05:30',
      sendAt: new Date('2026-06-01T04:30:00Z'),
    })
    expect(resolveSendAt({ local: '2026-10-04T02:15', timeZone: 'Australia/Sydney' }, now)).toMatchObject({
      kind: 'gap',
      suggestion: { local: '2026-10-04T03:00' },
    })
  })
})

describe('helpers', () => {
  it('formats offsets and wall times', () => {
    expect(formatOffset(-270)).toBe('-04:30')
    expect(formatOffset(0)).toBe('+00:00')
    expect(localTimeOf(new Date('2026-12-24T02:00:00Z'), 'Asia/Ho_Chi_Minh')).toBe('2026-12-24T09:00')
  })
})
