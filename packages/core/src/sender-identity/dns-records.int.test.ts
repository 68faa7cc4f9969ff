import { generateKeyPairSync } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compareDnsRecord, type DnsAnswer, type ExpectedDnsRecord } from './dns-records'

/**
 * The record checks against a real DNS round trip: node:dns asks the test DNS server
 * (packages/testing), which serves what the test publishes, as verification will in production.
 */
let dns: TestDnsServer
let resolver: Resolver

beforeAll(async () => {
  dns = await startTestDnsServer()
  resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([dns.address])
})
afterAll(async () => {
  await dns?.close()
})

async function lookUp(expected: ExpectedDnsRecord): Promise<DnsAnswer> {
  try {
    if (expected.type === 'TXT') return { type: 'TXT', records: await resolver.resolveTxt(expected.name) }
    if (expected.type === 'CNAME')
      return { type: 'CNAME', records: await resolver.resolveCname(expected.name) }
    return { type: 'MX', records: await resolver.resolveMx(expected.name) }
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN' }
  }
}

const dkimValue = () => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64')
  return `v=DKIM1; k=rsa; p=${der}`
}

describe('DNS record checks through a real DNS server', () => {
  it('verifies a 2048-bit DKIM key published as several 255-byte strings, and notices when it goes', async () => {
    const expected: ExpectedDnsRecord = { type: 'TXT', name: 'fl1._domainkey.shop.test', value: dkimValue() }
    expect(expected.value.length).toBeGreaterThan(255)
    expect(compareDnsRecord(expected, await lookUp(expected)).status).toBe('pending')

    dns.publish({ type: 'TXT', name: expected.name, value: expected.value })
    const answer = await lookUp(expected)
    // The key came back as more than one character-string, joined by the check.
    expect('type' in answer && answer.type === 'TXT' ? answer.records[0]?.length : 0).toBeGreaterThan(1)
    expect(compareDnsRecord(expected, answer).status).toBe('verified')

    dns.remove(expected.name)
    dns.publish({ type: 'TXT', name: expected.name, value: dkimValue() })
    const other = compareDnsRecord(expected, await lookUp(expected))
    expect(other.status).toBe('failed')
    expect(other.reason).toMatch(/DKIM/)
  })

  it('verifies the return-path CNAME whatever its case and trailing dot', async () => {
    const expected: ExpectedDnsRecord = { type: 'CNAME', name: 'bounce.shop.test', value: 'rp.fairlane.test' }
    dns.publish({ type: 'CNAME', name: 'Bounce.Shop.Test.', value: 'RP.Fairlane.Test' })
    expect(compareDnsRecord(expected, await lookUp(expected)).status).toBe('verified')
  })

  it('leaves a record pending when the DNS server does not answer at all', async () => {
    const silent = new Resolver({ timeout: 300, tries: 1 })
    silent.setServers(['127.0.0.1:9']) // discard port: nothing answers
    const expected: ExpectedDnsRecord = {
      type: 'TXT',
      name: 'fl1._domainkey.shop.test',
      value: 'v=DKIM1; p=x',
    }
    let answer: DnsAnswer
    try {
      answer = { type: 'TXT', records: await silent.resolveTxt(expected.name) }
    } catch (error) {
      answer = { error: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN' }
    }
    const check = compareDnsRecord(expected, answer)
    expect(check.status).toBe('pending')
    expect(check.inconclusive).toBe(true)
  })
})
