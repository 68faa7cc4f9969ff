import { describe, expect, it } from 'vitest'
import { initialRotationState, nextRotationState } from '../dkim-rotation'
import type { RecordCheck } from '../dns-records'
import {
  applyRecordChecks,
  PENDING_CHECK_EVERY_MS,
  PENDING_TIMED_OUT_REASON,
  type RecordLookupResult,
  SETTLED_CHECK_EVERY_MS,
} from './apply-record-checks'
import { expectedDomainRecords } from './domain-records'
import type { StoredDomain } from './ports'

const t0 = new Date('2026-12-01T00:00:00Z')
const at = (ms: number) => new Date(t0.getTime() + ms)
const settings = { returnPathHost: 'bounces.fairlane.test' }

function domain(overrides: Partial<StoredDomain> = {}): StoredDomain {
  return {
    id: 'd1',
    tenantId: 't1',
    name: 'shop.test',
    status: 'pending',
    returnPathLabel: 'fl-bounces',
    ownershipToken: null,
    dkim: initialRotationState('fl202612aaaa', t0),
    keys: [
      { selector: 'fl202612aaaa', publicKey: 'AAAA', createdAt: t0 },
      { selector: 'fl202612bbbb', publicKey: 'BBBB', createdAt: t0 },
    ],
    checks: [],
    failureReason: null,
    checkCount: 0,
    verifiedAt: null,
    lastCheckedAt: null,
    nextCheckAt: at(PENDING_CHECK_EVERY_MS),
    createdAt: t0,
    ...overrides,
  }
}

const verified: RecordCheck = { status: 'verified', reason: 'matches' }
const missing: RecordCheck = { status: 'pending', reason: 'no record found yet' }
const timedOut: RecordCheck = { status: 'pending', reason: 'lookup timed out', inconclusive: true }
const wrong: RecordCheck = { status: 'failed', reason: 'a different DKIM key' }

/** Every listed record with one result, some overridden by purpose (or dkim selector). */
function results(current: StoredDomain, by: Record<string, RecordCheck>, fallback = verified) {
  return expectedDomainRecords(current, settings).map(
    (record): RecordLookupResult => ({
      record,
      check: by[record.selector ?? record.purpose] ?? by[record.purpose] ?? fallback,
      ...(by[record.selector ?? record.purpose]?.status === 'failed' ? { found: 'v=DKIM1; p=ZZZ' } : {}),
    }),
  )
}

function step(current: StoredDomain, by: Record<string, RecordCheck>, now: Date, fallback = verified) {
  const change = applyRecordChecks(current, results(current, by, fallback), now)
  return { change, next: { ...current, ...change } as StoredDomain }
}

describe('applyRecordChecks', () => {
  it('verifies a pending domain once DKIM and the return path verify, and releases held mail', () => {
    const { change } = step(domain(), { spf: missing, dmarc: missing }, at(1000))
    expect(change.status).toBe('verified')
    expect(change.releaseHeld).toBe(true)
    expect(change.verifiedAt).toEqual(at(1000))
    expect(change.nextCheckAt).toEqual(at(1000 + SETTLED_CHECK_EVERY_MS))
    expect(change.dkim?.active?.selector).toBe('fl202612aaaa')
  })

  it('keeps a domain pending while the return path is missing, and a wrong DKIM record says what was found', () => {
    const { change } = step(domain(), { 'return-path': missing, fl202612aaaa: wrong }, at(1000))
    expect(change.status).toBe('pending')
    expect(change.releaseHeld).toBe(false)
    const dkim = change.checks?.find((check) => check.purpose === 'dkim')
    expect(dkim).toMatchObject({ status: 'failed', found: 'v=DKIM1; p=ZZZ' })
  })

  it('a timeout leaves the record pending, never failed, and never counts against a verified domain', () => {
    const first = step(domain(), {}, at(1000)).next
    const { change } = step(first, { fl202612aaaa: timedOut, 'return-path': timedOut }, at(2000))
    expect(change.status).toBe('verified')
    expect(change.dkim?.activeFailedChecks).toBe(0)
    expect(change.checks?.find((check) => check.purpose === 'return-path')).toMatchObject({
      status: 'pending',
      failedChecks: 0,
    })
  })

  it('a verified domain whose DKIM record goes stays verified after one check and fails after the second', () => {
    const ok = step(domain(), {}, at(1000)).next
    const once = step(ok, { fl202612aaaa: missing }, at(2000))
    expect(once.change.status).toBe('verified')
    expect(once.change.failureReason).toBeNull()
    const twice = step(once.next, { fl202612aaaa: missing }, at(3000))
    expect(twice.change.status).toBe('failed')
    expect(twice.change.failureReason).toMatch(/DKIM record fl202612aaaa\._domainkey\.shop\.test.*2 checks/)
    const back = step(twice.next, {}, at(4000))
    expect(back.change.status).toBe('verified')
    expect(back.change.releaseHeld).toBe(true)
    expect(back.change.failureReason).toBeNull()
  })

  it('the return path failing twice in a row fails a verified domain', () => {
    const ok = step(domain(), {}, at(1000)).next
    const once = step(ok, { 'return-path': missing }, at(2000))
    expect(once.change.status).toBe('verified')
    const twice = step(once.next, { 'return-path': missing }, at(3000))
    expect(twice.change.status).toBe('failed')
    expect(twice.change.failureReason).toMatch(/return-path record fl-bounces\.shop\.test/)
  })

  it('requires the ownership record when another tenant had the domain first', () => {
    const shared = domain({ ownershipToken: 'abc' })
    expect(step(shared, { ownership: missing }, at(1000)).change.status).toBe('pending')
    expect(step(shared, {}, at(1000)).change.status).toBe('verified')
  })

  it('stops scheduled checks of a domain still pending 72 hours after it was added', () => {
    const { change } = step(domain(), { 'return-path': missing }, at(72 * 3600_000 + 1))
    expect(change.status).toBe('pending')
    expect(change.nextCheckAt).toBeNull()
    expect(change.failureReason).toBe(PENDING_TIMED_OUT_REASON)
  })

  it('promotes a rotation only when its record verifies, listing the old key as retired', () => {
    const ok = step(domain(), {}, at(1000)).next
    const rotated = nextRotationState(ok.dkim, { type: 'rotate', selector: 'fl202612bbbb' }, at(2000))
    if (!rotated.ok) throw new Error(rotated.reason)
    const rotating = { ...ok, dkim: rotated.state }
    const waiting = step(rotating, { fl202612bbbb: missing }, at(3000))
    expect(waiting.change.dkim?.active?.selector).toBe('fl202612aaaa')
    expect(waiting.change.nextCheckAt).toEqual(at(3000 + PENDING_CHECK_EVERY_MS))
    const switched = step(waiting.next, {}, at(4000))
    expect(switched.change.dkim?.active?.selector).toBe('fl202612bbbb')
    expect(switched.change.dkim?.retired.map((key) => key.selector)).toEqual(['fl202612aaaa'])
    expect(switched.change.status).toBe('verified')
    expect(switched.change.releaseHeld).toBe(false)
  })
})
