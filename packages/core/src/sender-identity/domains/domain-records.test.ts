import { describe, expect, it } from 'vitest'
import { initialRotationState } from '../dkim-rotation'
import { domainRecordViews, expectedDomainRecords } from './domain-records'
import type { StoredDomain } from './ports'

const t0 = new Date('2026-12-01T00:00:00Z')
const settings = { returnPathHost: 'bounces.fairlane.test' }

const base: StoredDomain = {
  id: 'd1',
  tenantId: 't1',
  name: 'shop.test',
  status: 'pending',
  returnPathLabel: 'fl-bounces',
  ownershipToken: null,
  dkim: initialRotationState('fl202612aaaa', t0),
  keys: [{ selector: 'fl202612aaaa', publicKey: 'PUBKEY', createdAt: t0 }],
  checks: [],
  failureReason: null,
  checkCount: 0,
  verifiedAt: null,
  lastCheckedAt: null,
  nextCheckAt: null,
  createdAt: t0,
}

describe('expectedDomainRecords', () => {
  it('lists DKIM and the return path as required, SPF and DMARC as advice', () => {
    expect(expectedDomainRecords(base, settings)).toEqual([
      {
        purpose: 'dkim',
        type: 'TXT',
        name: 'fl202612aaaa._domainkey.shop.test',
        value: 'v=DKIM1; k=rsa; p=PUBKEY',
        required: true,
        selector: 'fl202612aaaa',
      },
      {
        purpose: 'return-path',
        type: 'CNAME',
        name: 'fl-bounces.shop.test',
        value: 'bounces.fairlane.test',
        required: true,
      },
      {
        purpose: 'spf',
        type: 'TXT',
        name: 'shop.test',
        value: 'v=spf1 include:bounces.fairlane.test ~all',
        required: false,
      },
      {
        purpose: 'dmarc',
        type: 'TXT',
        name: '_dmarc.shop.test',
        value: 'v=DMARC1; p=none; rua=mailto:dmarc@shop.test',
        required: false,
      },
    ])
  })

  it('adds the ownership record when the domain has a token, and retired keys with their removal date', () => {
    const removableAt = new Date('2026-12-10T00:00:00Z')
    const records = expectedDomainRecords(
      {
        ...base,
        ownershipToken: 'abc',
        dkim: {
          active: { selector: 'fl202612bbbb', createdAt: t0 },
          pending: null,
          retired: [{ selector: 'fl202612aaaa', retiredAt: t0, removableAt }],
          activeFailedChecks: 0,
        },
        keys: [...base.keys, { selector: 'fl202612bbbb', publicKey: 'NEWKEY', createdAt: t0 }],
      },
      settings,
    )
    expect(records.find((record) => record.purpose === 'ownership')).toMatchObject({
      name: '_fairlane.shop.test',
      value: 'fairlane-verification=abc',
      required: true,
    })
    expect(records.filter((record) => record.purpose === 'dkim')).toMatchObject([
      { selector: 'fl202612bbbb', required: true },
      { selector: 'fl202612aaaa', required: false, removableAfter: removableAt },
    ])
  })

  it('shows each record with its last check, pending when not checked yet', () => {
    const views = domainRecordViews(
      {
        ...base,
        checks: [
          {
            purpose: 'dkim',
            selector: 'fl202612aaaa',
            status: 'failed',
            found: 'v=DKIM1; p=OTHER',
            reason: 'a different DKIM key',
            checkedAt: t0,
          },
        ],
      },
      settings,
    )
    expect(views[0]).toMatchObject({ status: 'failed', found: 'v=DKIM1; p=OTHER' })
    expect(views.slice(1).every((view) => view.status === 'pending')).toBe(true)
  })
})
