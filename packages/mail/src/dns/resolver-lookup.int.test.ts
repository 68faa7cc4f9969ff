import { createSocket, type Socket } from 'node:dgram'
import { startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDnsLookup } from './resolver-lookup'

/** The adapter against a real DNS server (answers) and a UDP port that never answers (timeouts). */
let dns: TestDnsServer
let silent: Socket

beforeAll(async () => {
  dns = await startTestDnsServer()
  silent = createSocket('udp4')
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  silent?.close()
  await dns?.close()
})

describe('createDnsLookup', () => {
  it('answers TXT as strings per record, CNAME targets and MX in node:dns shapes', async () => {
    const lookup = createDnsLookup({ servers: [dns.address] })
    const long = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`
    dns.publish({ type: 'TXT', name: 'sel._domainkey.adapter.test', value: long })
    dns.publish({ type: 'CNAME', name: 'fl-bounces.adapter.test', value: 'bounces.fairlane.test' })
    dns.publish({ type: 'MX', name: 'adapter.test', value: 'mx.fairlane.test', priority: 5 })
    const txt = await lookup.lookup({ type: 'TXT', name: 'sel._domainkey.adapter.test' })
    expect(txt).toMatchObject({ type: 'TXT' })
    if (!('type' in txt) || txt.type !== 'TXT') throw new Error('no TXT answer')
    expect(txt.records).toHaveLength(1)
    expect(txt.records[0]?.join('')).toBe(long)
    expect(await lookup.lookup({ type: 'CNAME', name: 'fl-bounces.adapter.test' })).toEqual({
      type: 'CNAME',
      records: ['bounces.fairlane.test'],
    })
    expect(await lookup.lookup({ type: 'MX', name: 'adapter.test' })).toEqual({
      type: 'MX',
      records: [{ exchange: 'mx.fairlane.test', priority: 5 }],
    })
  })

  it('answers a missing name as its error code, not a throw', async () => {
    const lookup = createDnsLookup({ servers: [dns.address] })
    expect(await lookup.lookup({ type: 'TXT', name: 'nothing.adapter.test' })).toEqual({ error: 'ENOTFOUND' })
  })

  it('answers ETIMEOUT within its timeout when the server never answers', async () => {
    const lookup = createDnsLookup({
      servers: [`127.0.0.1:${silent.address().port}`],
      timeoutMs: 200,
      tries: 1,
    })
    const started = Date.now()
    expect(await lookup.lookup({ type: 'TXT', name: 'slow.adapter.test' })).toEqual({ error: 'ETIMEOUT' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})
