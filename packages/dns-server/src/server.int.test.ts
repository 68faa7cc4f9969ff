import { Resolver } from 'node:dns/promises'
import dns2 from 'dns2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DnsServer, startDnsServer } from './server'

let dns: DnsServer
let resolver: Resolver

beforeAll(async () => {
  dns = await startDnsServer({ host: '127.0.0.1', port: 0 })
  resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([dns.address])
})
afterAll(async () => {
  await dns?.close()
})

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: NodeJS.ErrnoException) => error.code,
  )

describe('the DNS server', () => {
  it('answers what was published, case-blind, and NXDOMAIN once it is removed', async () => {
    dns.publish({ type: 'TXT', name: 'Shop.Test.', value: 'v=spf1 ip4:127.0.0.1 -all' })
    dns.publish({ type: 'MX', name: 'shop.test', value: 'mx.shop.test', priority: 5 })
    expect(await resolver.resolveTxt('shop.test')).toEqual([['v=spf1 ip4:127.0.0.1 -all']])
    expect(await resolver.resolveMx('SHOP.test')).toEqual([{ exchange: 'mx.shop.test', priority: 5 }])
    expect(dns.list()).toHaveLength(2)

    expect(dns.remove('shop.test', 'TXT')).toBe(1)
    expect(await code(resolver.resolveTxt('shop.test'))).toBe('ENODATA')
    expect(dns.remove('shop.test')).toBe(1)
    expect(await code(resolver.resolveMx('shop.test'))).toBe('ENOTFOUND')
  })

  it('follows a CNAME to the records of its target, as SPF on a return-path host needs', async () => {
    dns.publish({ type: 'CNAME', name: 'fl-bounces.shop.test', value: 'bounces.platform.test' })
    dns.publish({ type: 'TXT', name: 'bounces.platform.test', value: 'v=spf1 ip4:127.0.0.1 -all' })
    expect(await resolver.resolveCname('fl-bounces.shop.test')).toEqual(['bounces.platform.test'])
    expect(await resolver.resolveTxt('fl-bounces.shop.test')).toEqual([['v=spf1 ip4:127.0.0.1 -all']])
  })

  it('answers A and AAAA records, through a CNAME too', async () => {
    dns.publish({ type: 'A', name: 'hooks.shop.test', value: '10.0.0.7' })
    dns.publish({ type: 'AAAA', name: 'hooks.shop.test', value: '::1' })
    dns.publish({ type: 'CNAME', name: 'alias.shop.test', value: 'hooks.shop.test' })
    expect(await resolver.resolve4('hooks.shop.test')).toEqual(['10.0.0.7'])
    expect(await resolver.resolve6('hooks.shop.test')).toEqual(['::1'])
    expect(await resolver.resolve4('alias.shop.test')).toEqual(['10.0.0.7'])
  })

  it('ends a CNAME loop instead of following it for ever', async () => {
    dns.publish({ type: 'CNAME', name: 'a.loop.test', value: 'b.loop.test' })
    dns.publish({ type: 'CNAME', name: 'b.loop.test', value: 'a.loop.test' })
    // The answer is a bounded chain of CNAMEs and no TXT, sent at once.
    expect(await resolver.resolveTxt('a.loop.test')).toEqual([])
  })

  it('serves each record with its own TTL (60 s when it names none) and a null MX as the root', async () => {
    dns.publish({ type: 'MX', name: 'ttl.test', value: 'mx.ttl.test', priority: 10, ttl: 7 })
    dns.publish({ type: 'A', name: 'mx.ttl.test', value: '127.0.0.1' })
    dns.publish({ type: 'MX', name: 'nomail.test', value: '.', priority: 0 })
    const [host, port] = dns.address.split(':')
    const query = dns2.UDPClient({ dns: host, port: Number(port), timeout: 2_000 })
    const mx = await query('ttl.test', 'MX')
    expect(mx.answers.map((record) => [record.exchange, record.ttl])).toEqual([['mx.ttl.test', 7]])
    const a = await query('mx.ttl.test', 'A')
    expect(a.answers.map((record) => [record.address, record.ttl])).toEqual([['127.0.0.1', 60]])
    const nullMx = await query('nomail.test', 'MX')
    expect(nullMx.answers.map((record) => [record.exchange, record.priority])).toEqual([['', 0]])
  })
})
