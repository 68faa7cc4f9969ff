import { describe, expect, it } from 'vitest'
import { checkKeyDomain, checkKeyScope, scopeAllows } from './key-scope'

describe('key scopes', () => {
  it('lets a full key call anything and a sending key only sending routes', () => {
    expect(scopeAllows('full', 'full')).toBe(true)
    expect(scopeAllows('full', 'sending')).toBe(true)
    expect(scopeAllows('sending', 'sending')).toBe(true)
    expect(scopeAllows('sending', 'full')).toBe(false)
  })

  it('refuses with a 403 naming the scope', () => {
    expect(() => checkKeyScope('sending', 'full')).toThrow(/"sending" scope.*needs a "full" key/)
    expect(() => checkKeyScope('sending', 'full')).toThrow(expect.objectContaining({ code: 'forbidden' }))
  })
})

describe('key domain restriction', () => {
  it('passes any From for an unrestricted key and a From on the domain for a restricted one', () => {
    expect(() => checkKeyDomain(null, null)).not.toThrow()
    expect(() => checkKeyDomain('shop.test', '"Shop" <orders@shop.test>')).not.toThrow()
    expect(() => checkKeyDomain('shop.test', 'orders@SHOP.test')).not.toThrow()
  })

  it('refuses another domain, a subdomain and the platform sender, naming the domain', () => {
    for (const from of ['news@blog.test', 'a@mail.shop.test', null]) {
      expect(() => checkKeyDomain('shop.test', from)).toThrow(/may only send from the domain shop\.test/)
    }
  })
})
