import { describe, expect, it } from 'vitest'
import { canonicalJson, requestHash } from './canonical-json'

describe('canonical request hashing', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}',
    )
  })

  it('hashes bodies that mean the same to the same value', () => {
    const one = JSON.parse('{"to":"a@b.test","template":"otp","variables":{"code":"1234","appName":"X"}}')
    const two = JSON.parse(
      '{ "variables": { "appName": "X", "code": "1234" }, "template": "otp", "to": "a@b.test" }',
    )
    expect(requestHash(one)).toBe(requestHash(two))
    expect(requestHash(one)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('tells different bodies apart, including array order and value types', () => {
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }))
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: '1' }))
    expect(requestHash({ code: '1234' })).not.toBe(requestHash({ code: '1235' }))
  })

  it('escapes keys and strings the way JSON does', () => {
    expect(canonicalJson({ 'a"b': 'x\ny' })).toBe('{"a\\"b":"x\\ny"}')
  })
})
