import { describe, expect, it } from 'vitest'
import { buildReturnPath, parseReturnPath } from './return-path'

const messageId = '0b6f6f5e-3c1a-4f43-9d53-7c1e2b1f0a11'
const secret = 'a-return-path-secret-of-32-characters'
const host = 'bounces.example.com'
const verify = { secrets: [secret] }

/** Replaces the character at `index` with another one of the same alphabet. */
function flip(text: string, index: number): string {
  const replacement = text[index] === 'a' ? 'b' : 'a'
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`
}

describe('buildReturnPath', () => {
  it('builds <prefix>-<26-char id>-<10-char mac>@<host> in lowercase', () => {
    const address = buildReturnPath({ messageId, host, secret })
    expect(address).toMatch(/^b-[a-z2-7]{26}-[a-z2-7]{10}@bounces\.example\.com$/)
  })

  it('keeps the local part within 64 characters with the longest prefix', () => {
    const address = buildReturnPath({ messageId, host, secret, prefix: 'a'.repeat(20) })
    expect(address.split('@')[0]?.length).toBeLessThanOrEqual(64)
  })

  it('is deterministic and unique per message', () => {
    const other = '11111111-1111-4111-8111-111111111111'
    expect(buildReturnPath({ messageId, host, secret })).toBe(buildReturnPath({ messageId, host, secret }))
    expect(buildReturnPath({ messageId, host, secret })).not.toBe(
      buildReturnPath({ messageId: other, host, secret }),
    )
  })

  it('normalises the host (case, trailing dot) and the uuid case', () => {
    expect(
      buildReturnPath({ messageId: messageId.toUpperCase(), host: 'Bounces.Example.COM.', secret }),
    ).toBe(buildReturnPath({ messageId, host, secret }))
  })

  it('refuses a non-uuid id, a bad prefix, a bad host or an empty secret', () => {
    expect(() => buildReturnPath({ messageId: 'nope', host, secret })).toThrow(TypeError)
    for (const prefix of ['', 'has-dash', 'UPPER', 'a'.repeat(21), 'sp ace']) {
      expect(() => buildReturnPath({ messageId, host, secret, prefix }), prefix).toThrow(TypeError)
    }
    for (const bad of ['', 'a@b.com', '-bad.com', 'a..b.com', 'under_score.com']) {
      expect(() => buildReturnPath({ messageId, host: bad, secret }), bad).toThrow(TypeError)
    }
    expect(() => buildReturnPath({ messageId, host, secret: '' })).toThrow(RangeError)
  })
})

describe('parseReturnPath', () => {
  it('round-trips the message id', () => {
    expect(parseReturnPath(buildReturnPath({ messageId, host, secret }), verify)).toEqual({ messageId })
  })

  it('round-trips edge ids (all zeros, all ones) and many random ones', () => {
    const ids = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']
    for (let i = 0; i < 200; i++) ids.push(crypto.randomUUID())
    for (const id of ids) {
      expect(parseReturnPath(buildReturnPath({ messageId: id, host, secret }), verify)).toEqual({
        messageId: id,
      })
    }
  })

  it('accepts the address uppercased or with a trailing dot on the host (servers may change case)', () => {
    const address = buildReturnPath({ messageId, host, secret })
    expect(parseReturnPath(address.toUpperCase(), verify)).toEqual({ messageId })
    expect(parseReturnPath(`${address}.`, verify)).toEqual({ messageId })
  })

  it('refuses an address with any single character of the local part changed', () => {
    const address = buildReturnPath({ messageId, host, secret })
    const localLength = address.indexOf('@')
    for (let index = 0; index < localLength; index++) {
      if (address[index] === '-') continue
      expect(parseReturnPath(flip(address, index), verify), `position ${index}`).toBeNull()
    }
  })

  it("refuses another message's id under this message's mac", () => {
    const mine = buildReturnPath({ messageId, host, secret })
    const other = buildReturnPath({ messageId: '11111111-1111-4111-8111-111111111111', host, secret })
    const forged = `${other.slice(0, 28)}${mine.slice(28)}`
    expect(forged).not.toBe(other)
    expect(parseReturnPath(forged, verify)).toBeNull()
  })

  it('refuses the address replayed to another host', () => {
    const address = buildReturnPath({ messageId, host, secret })
    expect(
      parseReturnPath(address.replace('@bounces.example.com', '@bounces.example.org'), verify),
    ).toBeNull()
  })

  it('refuses another prefix, even one signed with the same secret', () => {
    const address = buildReturnPath({ messageId, host, secret, prefix: 'x' })
    expect(parseReturnPath(address, verify)).toBeNull()
    expect(parseReturnPath(address, { ...verify, prefix: 'x' })).toEqual({ messageId })
    expect(parseReturnPath(address.replace(/^x-/, 'b-'), verify)).toBeNull()
  })

  it('refuses an address signed with a secret that is not listed', () => {
    const address = buildReturnPath({ messageId, host, secret: 'some-other-secret-of-32-characters!!' })
    expect(parseReturnPath(address, verify)).toBeNull()
  })

  it('verifies with every listed secret after a rotation (the new one signs first)', () => {
    const fresh = 'the-next-return-path-secret-of-32-chars'
    const before = buildReturnPath({ messageId, host, secret })
    const after = buildReturnPath({ messageId, host, secret: fresh })
    const rotated = { secrets: [fresh, secret] }
    expect(after).not.toBe(before)
    expect(parseReturnPath(before, rotated)).toEqual({ messageId })
    expect(parseReturnPath(after, rotated)).toEqual({ messageId })
    expect(parseReturnPath(before, { secrets: [fresh] })).toBeNull()
  })

  it('refuses a non-canonical id (the spare low bits set) even with a matching mac shape', () => {
    const address = buildReturnPath({ messageId, host, secret })
    // The last id character carries 3 data bits and 2 spare ones (always zero when built); set one.
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
    const last = address[27] as string
    const variant = `${address.slice(0, 27)}${alphabet[alphabet.indexOf(last) | 1]}${address.slice(28)}`
    expect(variant).not.toBe(address)
    expect(parseReturnPath(variant, verify)).toBeNull()
  })

  it('refuses malformed addresses', () => {
    const address = buildReturnPath({ messageId, host, secret })
    const local = address.split('@')[0] as string
    for (const bad of [
      '',
      'b',
      local,
      `@${host}`,
      `${local}@`,
      `${local}x@${host}`,
      `${local.slice(0, -1)}@${host}`,
      `${local.replace(/-/g, '')}@${host}`,
      `${local.replace(/-/g, '+')}@${host}`,
      `${local}@bad_host.com`,
      `<${address}>`,
      ` ${address}`,
      `${local.slice(0, 2)}1${local.slice(3)}@${host}`,
      `${'a'.repeat(400)}@${host}`,
    ]) {
      expect(parseReturnPath(bad, verify), JSON.stringify(bad)).toBeNull()
    }
  })

  it('needs at least one secret', () => {
    expect(() => parseReturnPath('b-x-y@example.com', { secrets: [] })).toThrow(RangeError)
  })
})
