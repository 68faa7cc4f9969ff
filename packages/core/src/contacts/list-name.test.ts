import { fastestMs } from '@fairlane/testing/fastest-ms'
import { describe, expect, it } from 'vitest'
import { splitEmailList, validateListName } from './list-name'

describe('list names and pasted emails', () => {
  it('trims a name and refuses empty or long ones', () => {
    expect(validateListName('  Customers ')).toEqual({ ok: true, name: 'Customers' })
    expect(validateListName('   ').ok).toBe(false)
    expect(validateListName(undefined).ok).toBe(false)
    expect(validateListName('x'.repeat(101)).ok).toBe(false)
  })

  it('splits pasted emails on commas, semicolons and whitespace, lowercasing and deduplicating', () => {
    expect(splitEmailList('Ann@A.test, bo@a.test;\n cy@a.test  ann@a.test, nope')).toEqual({
      emails: ['ann@a.test', 'bo@a.test', 'cy@a.test'],
      invalid: ['nope'],
    })
  })

  it('reads a 50,000-character run of dots in linear time (an address is at most 254)', () => {
    const pasted = `a@${'.'.repeat(50_000)}@`
    expect(fastestMs(() => splitEmailList(pasted))).toBeLessThan(50)
    expect(splitEmailList(pasted).invalid).toEqual([pasted])
  })
})
