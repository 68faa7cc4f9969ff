import { describe, expect, it } from 'vitest'
import { forbiddenAddressReason, webhookUrlProblem } from './address-rules'

describe('forbiddenAddressReason', () => {
  it.each([['93.184.216.34'], ['8.8.8.8'], ['2606:4700::1111'], ['2a00:1450:4001:80b::200e']])(
    'lets a public address through: %s',
    (address) => {
      expect(forbiddenAddressReason(address)).toBeNull()
    },
  )

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['10.0.0.7', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:7f00:1::1', '6to4'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(forbiddenAddressReason(address)).toContain(kind)
  })

  it('judges an IPv4-mapped IPv6 address by the IPv4 address it embeds', () => {
    expect(forbiddenAddressReason('::ffff:127.0.0.1')).toContain('127.0.0.1 is a loopback')
    expect(forbiddenAddressReason('::ffff:7f00:1')).toContain('loopback')
    expect(forbiddenAddressReason('::ffff:a9fe:a9fe')).toContain('169.254.169.254 is a link-local')
    expect(forbiddenAddressReason('::ffff:5db8:d822')).toBeNull()
  })

  it('reads the decimal, octal and hexadecimal forms of IPv4 as the address they are', () => {
    for (const form of ['2130706433', '0177.0.0.1', '0x7f000001', '0x7f.1', '127.1']) {
      expect(forbiddenAddressReason(form), form).toContain('127.0.0.1 is a loopback')
    }
    expect(forbiddenAddressReason('2852039166'), '169.254.169.254 as one number').toContain('link-local')
  })

  it('says so when it is given something that is not an address', () => {
    expect(forbiddenAddressReason('example.com')).toBe('example.com is not an IP address')
  })
})

describe('webhookUrlProblem', () => {
  const strict = { allowPrivate: false }

  it('accepts an https URL with a host name, a port, a path and a query', () => {
    expect(webhookUrlProblem('https://hooks.example.com:8443/fairlane?team=7', strict)).toBeNull()
  })

  it('asks for https, and allows http only with WEBHOOK_ALLOW_PRIVATE', () => {
    expect(webhookUrlProblem('http://hooks.example.com/', strict)).toBe('url must start with https://')
    expect(webhookUrlProblem('http://127.0.0.1:4000/', { allowPrivate: true })).toBeNull()
    expect(webhookUrlProblem('ftp://hooks.example.com/', { allowPrivate: true })).toBe(
      'url must start with https:// or http://',
    )
  })

  it('refuses a URL over 2,048 characters, naming its length', () => {
    const url = `https://hooks.example.com/${'a'.repeat(2048)}`
    expect(webhookUrlProblem(url, strict)).toBe(`url must be at most 2048 characters (got ${url.length})`)
  })

  it('refuses what is not an absolute URL, and credentials in it', () => {
    expect(webhookUrlProblem('hooks.example.com/x', strict)).toBe('url is not an absolute URL')
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/', strict)).toBe(
      'url must not contain a user name or password',
    )
  })

  it.each([
    'https://127.0.0.1/',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[fd00:ec2::254]/',
    'https://localhost/',
    'https://api.localhost/',
  ])('refuses a literal private or loopback host: %s', (url) => {
    expect(webhookUrlProblem(url, strict)).toMatch(/^url must point at a public address: /)
  })

  it('lets literal private hosts through with WEBHOOK_ALLOW_PRIVATE', () => {
    expect(webhookUrlProblem('https://169.254.169.254/', { allowPrivate: true })).toBeNull()
  })
})
