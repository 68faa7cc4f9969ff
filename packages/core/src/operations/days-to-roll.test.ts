import { describe, expect, it } from 'vitest'
import { daysToRoll } from './days-to-roll'
import { type RollupStore, rollUpDays } from './roll-up-days'

const utc = (iso: string) => new Date(`${iso}Z`)

describe('daysToRoll', () => {
  it('plans each ended day after the cursor once: cursor 1 Oct, now 5 Oct 03:00 → 2, 3, 4 Oct', () => {
    const days = daysToRoll({
      cursor: utc('2026-10-01T00:00:00'),
      now: utc('2026-10-05T03:00:00'),
      timeZone: 'UTC',
    })
    expect(days.map((d) => d.day)).toEqual(['2026-10-02', '2026-10-03', '2026-10-04'])
    expect(days[0]).toEqual({
      day: '2026-10-02',
      startsAt: utc('2026-10-02T00:00:00'),
      endsAt: utc('2026-10-03T00:00:00'),
    })
  })

  it('plans nothing when run again after the cursor moved to 4 Oct', () => {
    expect(
      daysToRoll({ cursor: utc('2026-10-04T00:00:00'), now: utc('2026-10-05T03:00:00'), timeZone: 'UTC' }),
    ).toEqual([])
    expect(
      daysToRoll({ cursor: utc('2026-10-04T00:00:00'), now: utc('2026-10-05T23:59:59'), timeZone: 'UTC' }),
    ).toEqual([])
  })

  it('takes a day as ended at its last instant, not before', () => {
    const cursor = utc('2026-10-01T00:00:00')
    expect(daysToRoll({ cursor, now: utc('2026-10-02T23:59:59.999'), timeZone: 'UTC' })).toEqual([])
    expect(
      daysToRoll({ cursor, now: utc('2026-10-03T00:00:00'), timeZone: 'UTC' }).map((d) => d.day),
    ).toEqual(['2026-10-02'])
  })

  it('cuts days in the given zone, including 23- and 25-hour days', () => {
    // Europe/Berlin leaves summer time on 25 Oct 2026: that day is 25 hours long.
    const days = daysToRoll({
      cursor: new Date('2026-10-23T22:00:00Z'), // 24 Oct 00:00 in Berlin (UTC+2)
      now: new Date('2026-10-26T08:00:00Z'),
      timeZone: 'Europe/Berlin',
    })
    expect(days).toEqual([
      {
        day: '2026-10-25',
        startsAt: new Date('2026-10-24T22:00:00Z'),
        endsAt: new Date('2026-10-25T23:00:00Z'),
      },
    ])
    // Asia/Ho_Chi_Minh is UTC+7: at 2026-10-04T18:00Z it is already 5 Oct there, so 4 Oct has ended.
    const vietnam = daysToRoll({
      cursor: new Date('2026-10-02T17:00:00Z'), // 3 Oct 00:00 local
      now: new Date('2026-10-04T18:00:00Z'),
      timeZone: 'Asia/Ho_Chi_Minh',
    })
    expect(vietnam.map((d) => d.day)).toEqual(['2026-10-04'])
  })

  it('plans yesterday only on the first run (no cursor)', () => {
    expect(
      daysToRoll({ cursor: null, now: utc('2026-10-05T03:00:00'), timeZone: 'UTC' }).map((d) => d.day),
    ).toEqual(['2026-10-04'])
  })

  it('refuses an unknown zone', () => {
    expect(() => daysToRoll({ cursor: null, now: new Date(), timeZone: 'Mars/Olympus' })).toThrow(/time zone/)
  })
})

describe('rollUpDays', () => {
  function memoryStore(cursor: Date | null) {
    const state = { cursor, writes: [] as string[] }
    const store: RollupStore = {
      readCursor: async () => state.cursor,
      writeDay: async (day) => {
        state.writes.push(day.day)
        state.cursor = day.startsAt
        return { tenants: 1 }
      },
    }
    return { state, store }
  }

  it('writes each planned day once and moves the cursor; a second run writes nothing', async () => {
    const { state, store } = memoryStore(utc('2026-10-01T00:00:00'))
    const deps = { store, timeZone: 'UTC', clock: { now: () => utc('2026-10-05T03:00:00') } }
    const first = await rollUpDays(deps)
    expect(first.days.map((d) => d.day)).toEqual(['2026-10-02', '2026-10-03', '2026-10-04'])
    expect(state.cursor).toEqual(utc('2026-10-04T00:00:00'))
    const second = await rollUpDays(deps)
    expect(second.days).toEqual([])
    expect(state.writes).toEqual(['2026-10-02', '2026-10-03', '2026-10-04'])
  })
})
