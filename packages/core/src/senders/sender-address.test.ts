import { describe, expect, it } from 'vitest'
import { formatSenderAddress, parseSenderAddress } from './sender-address'

const ok = (input: string) => {
  const result = parseSenderAddress(input)
  if (!result.ok) throw new Error(`expected ${JSON.stringify(input)} to parse: ${result.message}`)
  return result
}
const refusal = (input: string) => {
  const result = parseSenderAddress(input)
  if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`)
  return result.message
}

describe('parseSenderAddress', () => {
  it('reads a bare address', () => {
    expect(ok('news@example.com')).toEqual({
      ok: true,
      sender: { name: null, address: 'news@example.com', localPart: 'news', domain: 'example.com' },
      header: 'news@example.com',
    })
    expect(ok('  <news@example.com> ').header).toBe('news@example.com')
  })

  it('reads a quoted or plain display name and always quotes it back', () => {
    expect(ok('"News Team" <news@example.com>').header).toBe('"News Team" <news@example.com>')
    expect(ok('News Team <news@example.com>').sender.name).toBe('News Team')
    expect(ok('News   Team<news@example.com>').header).toBe('"News Team" <news@example.com>')
    expect(ok('"Smith, Ann (Sales)" <ann@example.com>').sender.name).toBe('Smith, Ann (Sales)')
    expect(ok('"" <news@example.com>').header).toBe('news@example.com')
  })

  it('undoes and redoes escapes in a quoted name', () => {
    const parsed = ok('"Say \\"hi\\" \\\\o/" <hi@example.com>')
    expect(parsed.sender.name).toBe('Say "hi" \\o/')
    expect(parsed.header).toBe('"Say \\"hi\\" \\\\o/" <hi@example.com>')
    expect(ok(parsed.header).header).toBe(parsed.header)
  })

  it('normalises the domain (lowercase, IDN to punycode) and keeps the local part', () => {
    expect(ok('News.Team@Example.COM').sender).toMatchObject({
      address: 'News.Team@example.com',
      localPart: 'News.Team',
      domain: 'example.com',
    })
    expect(ok('Café <info@Bücher.DE>').header).toBe('"Café" <info@xn--bcher-kva.de>')
    expect(ok('chloé@exemple.fr').sender.domain).toBe('exemple.fr')
    expect(ok('news@example.com.').sender.domain).toBe('example.com')
  })

  it.each([
    ['CRLF after the address', 'news@example.com\r\nBcc: x@evil.test', 'single line'],
    ['LF in the name', '"News\nBcc: x@evil.test" <news@example.com>', 'single line'],
    ['CR alone', 'News\r <news@example.com>', 'single line'],
    ['NUL', 'news@example.com\u0000', 'single line'],
    ['an empty value', '   ', 'must not be empty'],
    ['no address', 'News Team', 'valid email address'],
    ['no domain', 'news@', 'valid email address'],
    ['a single-label domain', 'news@localhost', 'valid email address'],
    ['an unclosed bracket', 'News <news@example.com', 'name and address'],
    ['a stray bracket', 'news@example.com>', 'name and address'],
    ['an unbalanced quote', '"News <news@example.com>', 'name and address'],
    ['a quote inside a plain name', 'Ne"ws <news@example.com>', 'name and address'],
    ['two addresses', 'a@example.com, b@example.com', 'valid email address'],
    ['a space in the address', 'News <ne ws@example.com>', 'valid email address'],
    ['an invalid domain', 'news@exa mple.com', 'valid email address'],
  ])('refuses %s', (_label, input, message) => {
    expect(refusal(input)).toContain(message)
  })

  it('allows a display name of 200 characters, not 201', () => {
    expect(ok(`"${'n'.repeat(200)}" <news@example.com>`).sender.name).toHaveLength(200)
    expect(refusal(`"${'n'.repeat(201)}" <news@example.com>`)).toContain('longer than 200 characters')
    expect(refusal(`${'é'.repeat(201)} <news@example.com>`)).toContain('longer than 200')
  })

  it('refuses an address over 254 characters', () => {
    expect(refusal(`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`)).toContain(
      'valid email address',
    )
  })
})

describe('formatSenderAddress', () => {
  it('writes the bare address without a name', () => {
    expect(formatSenderAddress({ name: null, address: 'a@example.com' })).toBe('a@example.com')
  })
  it('quotes and escapes the name', () => {
    expect(formatSenderAddress({ name: 'A "B"', address: 'a@example.com' })).toBe(
      '"A \\"B\\"" <a@example.com>',
    )
  })
})
