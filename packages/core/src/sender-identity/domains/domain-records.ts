import type { DomainRecordPurpose } from '../../domain/statuses'
import { dkimRecordValue } from '../dkim-keys'
import type { RecordStatus } from '../dns-records'
import type { DomainRecordCheck, DomainSettings, StoredDomain } from './ports'

/**
 * The DNS records a domain's tenant is told to publish, derived from the row each time (never
 * stored), so the records shown, the records looked up and the records the signer's key matches are
 * one list. `required` records decide whether the domain is usable; SPF and DMARC are advice.
 */
export interface ExpectedDomainRecord {
  purpose: DomainRecordPurpose
  type: 'TXT' | 'CNAME'
  name: string
  value: string
  required: boolean
  /** The DKIM selector of a `dkim` record. */
  selector?: string
  /** A retired DKIM key's record: it may be deleted from DNS from then on. */
  removableAfter?: Date
}

export interface DomainRecordView extends ExpectedDomainRecord {
  status: RecordStatus
  found?: string
  reason?: string
}

export const OWNERSHIP_RECORD_LABEL = '_fairlane'
export const OWNERSHIP_VALUE_PREFIX = 'fairlane-verification='

export function expectedDomainRecords(
  domain: StoredDomain,
  settings: DomainSettings,
): ExpectedDomainRecord[] {
  const records: ExpectedDomainRecord[] = []
  const publicKeyOf = (selector: string) => domain.keys.find((key) => key.selector === selector)?.publicKey
  const dkim = (selector: string, required: boolean, removableAfter?: Date) => {
    const publicKey = publicKeyOf(selector)
    if (publicKey === undefined) return
    records.push({
      purpose: 'dkim',
      type: 'TXT',
      name: `${selector}._domainkey.${domain.name}`,
      value: dkimRecordValue(publicKey),
      required,
      selector,
      ...(removableAfter ? { removableAfter } : {}),
    })
  }
  const { active, pending, retired } = domain.dkim
  if (active) dkim(active.selector, true)
  if (pending) dkim(pending.selector, true)
  for (const key of retired) dkim(key.selector, false, key.removableAt)
  records.push({
    purpose: 'return-path',
    type: 'CNAME',
    name: `${domain.returnPathLabel}.${domain.name}`,
    value: settings.returnPathHost,
    required: true,
  })
  if (domain.ownershipToken !== null) {
    records.push({
      purpose: 'ownership',
      type: 'TXT',
      name: `${OWNERSHIP_RECORD_LABEL}.${domain.name}`,
      value: `${OWNERSHIP_VALUE_PREFIX}${domain.ownershipToken}`,
      required: true,
    })
  }
  records.push({
    purpose: 'spf',
    type: 'TXT',
    name: domain.name,
    value: `v=spf1 include:${settings.returnPathHost} ~all`,
    required: false,
  })
  records.push({
    purpose: 'dmarc',
    type: 'TXT',
    name: `_dmarc.${domain.name}`,
    value: `v=DMARC1; p=none; rua=mailto:dmarc@${domain.name}`,
    required: false,
  })
  return records
}

/** The stored check of a record: DKIM checks by selector, the others by purpose. */
export function checkOf(
  checks: readonly DomainRecordCheck[],
  record: Pick<ExpectedDomainRecord, 'purpose' | 'selector'>,
): DomainRecordCheck | undefined {
  return checks.find(
    (check) =>
      check.purpose === record.purpose && (record.purpose !== 'dkim' || check.selector === record.selector),
  )
}

/** The records with their last check; a record not checked yet is `pending`. */
export function domainRecordViews(domain: StoredDomain, settings: DomainSettings): DomainRecordView[] {
  return expectedDomainRecords(domain, settings).map((record) => {
    const check = checkOf(domain.checks, record)
    if (!check) return { ...record, status: 'pending' }
    return {
      ...record,
      status: check.status,
      ...(check.found !== undefined ? { found: check.found } : {}),
      ...(check.reason !== undefined ? { reason: check.reason } : {}),
    }
  })
}
