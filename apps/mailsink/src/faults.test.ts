import { describe, expect, it } from 'vitest'
import { FaultTable, isNotificationFault, matches, parseFaultSpec, splitReply } from './faults'

describe('parseFaultSpec', () => {
  it('accepts a reply fault and normalises match', () => {
    const result = parseFaultSpec({ match: ' User@Example.COM ', reply: '451 4.7.1 try later', times: 2 })
    expect(result).toEqual({
      ok: true,
      value: { match: 'user@example.com', reply: '451 4.7.1 try later', times: 2 },
    })
  })

  it('accepts domain matches, delay-only and drop faults', () => {
    expect(parseFaultSpec({ match: '@example.com', delayMs: 0 }).ok).toBe(true)
    expect(parseFaultSpec({ match: '@example.com', delayMs: 120_000 }).ok).toBe(true)
    expect(parseFaultSpec({ match: 'a@b.c', drop: true, delayMs: 50 })).toEqual({
      ok: true,
      value: { match: 'a@b.c', drop: true, delayMs: 50 },
    })
    expect(parseFaultSpec({ match: 'a@b.c', reply: '550 no such user' }).ok).toBe(true)
  })

  it('accepts dropAfterData, alone or after a delay', () => {
    expect(parseFaultSpec({ match: 'a@b.c', dropAfterData: true, times: 1 })).toEqual({
      ok: true,
      value: { match: 'a@b.c', dropAfterData: true, times: 1 },
    })
    expect(parseFaultSpec({ match: 'a@b.c', dropAfterData: true, delayMs: 20 }).ok).toBe(true)
  })

  it('accepts bounce and complaint faults, whose delayMs is the wait before the notification', () => {
    expect(parseFaultSpec({ match: '@example.com', bounce: ' 5.1.1 ', delayMs: 200, times: 3 })).toEqual({
      ok: true,
      value: { match: '@example.com', bounce: '5.1.1', delayMs: 200, times: 3 },
    })
    expect(parseFaultSpec({ match: 'a@b.c', bounce: '4.2.2' }).ok).toBe(true)
    expect(parseFaultSpec({ match: 'a@b.c', bounce: '5.7.26' }).ok).toBe(true)
    expect(parseFaultSpec({ match: 'a@b.c', bounce: '5.1.1', drop: false }).ok).toBe(true)
    expect(parseFaultSpec({ match: 'A@B.C', complaint: true })).toEqual({
      ok: true,
      value: { match: 'a@b.c', complaint: true },
    })
  })

  it.each([
    [{ match: 'a@b.c', bounce: '2.0.0' }, 'bounce'],
    [{ match: 'a@b.c', bounce: '550' }, 'bounce'],
    [{ match: 'a@b.c', bounce: '5.1' }, 'bounce'],
    [{ match: 'a@b.c', bounce: '5.01.1' }, 'bounce'],
    [{ match: 'a@b.c', bounce: '5.1.1000' }, 'bounce'],
    [{ match: 'a@b.c', bounce: 511 }, 'bounce'],
    [{ match: 'a@b.c', bounce: '5.1.1\r\n5.0.0' }, 'bounce'],
    [{ match: 'a@b.c', complaint: false }, 'complaint'],
    [{ match: 'a@b.c', complaint: 'yes' }, 'complaint'],
    [{ match: 'a@b.c', bounce: '5.1.1', complaint: true }, 'bounce'],
    [{ match: 'a@b.c', bounce: '5.1.1', reply: '550 x' }, 'reply'],
    [{ match: 'a@b.c', complaint: true, drop: true }, 'drop'],
    [{ match: 'a@b.c', complaint: true, dropAfterData: true }, 'dropAfterData'],
    [{ match: 'a@b.c', bounce: '5.1.1', delayMs: 120_001 }, 'delayMs'],
    [{ match: 'a@b.c', bounce: '5.1.1', times: 0 }, 'times'],
    [{ match: 'nobody', bounce: '5.1.1' }, 'match'],
    [{ match: 'a@b.c', bounce: '5.1.1', complain: true }, 'complain'],
  ])('refuses the notification fault %j naming the field %s', (body, field) => {
    const result = parseFaultSpec(body)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.field).toBe(field)
      expect(result.message).toContain(`"${field}"`)
    }
  })

  it.each([
    [null, 'JSON object'],
    [[], 'JSON object'],
    ['451', 'JSON object'],
    [{ reply: '451 x' }, '"match" is required'],
    [{ match: 'nobody', reply: '451 x' }, '"match" must be'],
    [{ match: 'a b@c.d', reply: '451 x' }, '"match" must be'],
    [{ match: '@', reply: '451 x' }, '"match" must be'],
    [{ match: 'a@b.c' }, 'at least one of'],
    [{ match: 'a@b.c', drop: false }, 'at least one of'],
    [{ match: 'a@b.c', reply: 451 }, '"reply" must be a string'],
    [{ match: 'a@b.c', reply: '250 ok' }, '"reply" must be a 4xx or 5xx'],
    [{ match: 'a@b.c', reply: '451' }, '"reply" must be a 4xx or 5xx'],
    [{ match: 'a@b.c', reply: '4511 nope' }, '"reply" must be a 4xx or 5xx'],
    [{ match: 'a@b.c', reply: '451 a\r\n250 injected' }, '"reply" must be a 4xx or 5xx'],
    [{ match: 'a@b.c', reply: '451 x', times: 0 }, '"times" must be a positive integer'],
    [{ match: 'a@b.c', reply: '451 x', times: 1.5 }, '"times" must be a positive integer'],
    [{ match: 'a@b.c', reply: '451 x', times: '2' }, '"times" must be a positive integer'],
    [{ match: 'a@b.c', delayMs: -1 }, '"delayMs" must be an integer from 0 to 120000'],
    [{ match: 'a@b.c', delayMs: 120_001 }, '"delayMs" must be an integer from 0 to 120000'],
    [{ match: 'a@b.c', drop: 'yes' }, '"drop" must be true or false'],
    [{ match: 'a@b.c', reply: '451 x', drop: true }, 'exclude each other'],
    [{ match: 'a@b.c', dropAfterData: false }, 'at least one of'],
    [{ match: 'a@b.c', dropAfterData: 1 }, '"dropAfterData" must be true or false'],
    [{ match: 'a@b.c', reply: '451 x', dropAfterData: true }, '"reply" and "dropAfterData" exclude'],
    [{ match: 'a@b.c', drop: true, dropAfterData: true }, '"drop" and "dropAfterData" exclude'],
    [{ match: 'a@b.c', reply: '451 x', dealyMs: 5 }, 'unknown field "dealyMs"'],
  ])('refuses %j naming the problem', (body, expected) => {
    const result = parseFaultSpec(body)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toContain(expected)
  })
})

describe('isNotificationFault', () => {
  it('tells the faults that answer 250 and report later from the others', () => {
    const table = new FaultTable()
    expect(isNotificationFault(table.add({ match: 'a@b.c', bounce: '5.1.1' }))).toBe(true)
    expect(isNotificationFault(table.add({ match: 'a@b.c', complaint: true }))).toBe(true)
    expect(isNotificationFault(table.add({ match: 'a@b.c', reply: '550 x' }))).toBe(false)
    expect(isNotificationFault(table.add({ match: 'a@b.c', delayMs: 5 }))).toBe(false)
  })
})

describe('splitReply', () => {
  it('separates the code from the text smtp-server writes after it', () => {
    expect(splitReply('451 4.7.1 try later')).toEqual({ code: 451, text: '4.7.1 try later' })
    expect(splitReply('550 no such user')).toEqual({ code: 550, text: 'no such user' })
  })
})

describe('matches', () => {
  it('matches an exact address or any address at a domain', () => {
    expect(matches('user@example.com', 'user@example.com')).toBe(true)
    expect(matches('user@example.com', 'other@example.com')).toBe(false)
    expect(matches('@example.com', 'anyone@example.com')).toBe(true)
    expect(matches('@example.com', 'anyone@sub.example.com')).toBe(false)
    expect(matches('@example.com', 'anyone@notexample.com')).toBe(false)
  })
})

describe('FaultTable', () => {
  it('counts down times and removes the fault at zero', () => {
    const table = new FaultTable()
    const fault = table.add({ match: 'a@example.com', reply: '451 4.7.1 try later', times: 2 })
    expect(fault.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(table.take(['A@Example.com'])?.reply).toBe('451 4.7.1 try later')
    expect(table.list()[0]?.times).toBe(1)
    expect(table.take(['a@example.com'])?.times).toBe(1)
    expect(table.list()).toEqual([])
    expect(table.take(['a@example.com'])).toBeUndefined()
  })

  it('keeps a fault without times until cleared', () => {
    const table = new FaultTable()
    table.add({ match: '@example.com', delayMs: 10 })
    for (let i = 0; i < 5; i++) expect(table.take(['x@example.com'])?.delayMs).toBe(10)
    expect(table.clear()).toBe(1)
    expect(table.take(['x@example.com'])).toBeUndefined()
  })

  it('applies the oldest matching fault when several match any recipient', () => {
    const table = new FaultTable()
    table.add({ match: 'other@example.org', reply: '550 first' })
    const older = table.add({ match: '@example.com', reply: '451 older', times: 1 })
    table.add({ match: 'b@example.com', reply: '550 newer' })
    expect(table.take(['nobody@example.net'])).toBeUndefined()
    expect(table.take(['a@example.net', 'b@example.com'])?.id).toBe(older.id)
    expect(table.take(['a@example.net', 'b@example.com'])?.reply).toBe('550 newer')
  })

  it('hands out copies, so callers cannot change the table', () => {
    const table = new FaultTable()
    table.add({ match: 'a@example.com', reply: '451 x', times: 3 })
    const listed = table.list()[0]
    if (listed) listed.times = 99
    expect(table.list()[0]?.times).toBe(3)
  })
})
