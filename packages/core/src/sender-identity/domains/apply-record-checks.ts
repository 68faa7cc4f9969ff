import type { DomainStatus } from '../../domain/statuses'
import { type DkimRotationState, nextRotationState, signingKey } from '../dkim-rotation'
import type { RecordCheck } from '../dns-records'
import { checkOf, type ExpectedDomainRecord } from './domain-records'
import type { DomainChange, DomainRecordCheck, StoredDomain } from './ports'

/** One record's lookup, compared (`compareDnsRecord`), with what was found when it is wrong. */
export interface RecordLookupResult {
  record: ExpectedDomainRecord
  check: RecordCheck
  found?: string
}

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
/** Pending domains (and a rotation's new record) are looked up this often… */
export const PENDING_CHECK_EVERY_MS = 5 * MINUTE_MS
/** …for this long after they were added (or the rotation began); then scheduled checks stop. */
export const PENDING_CHECK_WINDOW_MS = 72 * HOUR_MS
/** Verified and failed domains: once a day. */
export const SETTLED_CHECK_EVERY_MS = 24 * HOUR_MS
/**
 * A verified domain with a required record that just failed once is looked at again sooner: its
 * second failed check decides whether its mail is held, and a day is too long to sign with a key
 * whose record may be gone.
 */
export const SUSPECT_CHECK_EVERY_MS = HOUR_MS
/** Consecutive conclusive failures of the return-path CNAME after which a verified domain fails. */
export const RETURN_PATH_FAILED_CHECKS_TO_FAIL = 2

export const PENDING_TIMED_OUT_REASON = 'records not found within 72 hours; verify again after publishing'

/**
 * What a round of lookups changes on a domain, decided on the row as it is under its lock (a
 * rotation or another check may have happened since the lookups began): the rotation reducer hears
 * each DKIM check, each record gets its status, and the domain's status follows the rule:
 *
 * - `verified` once the DKIM key signs (its record verified), the return-path CNAME verifies and, for
 *   a domain another tenant had first, the ownership TXT verifies;
 * - a `verified` domain turns `failed` only when its key stops signing (two consecutive failed
 *   checks of its record) or its return path failed twice in a row; one bad check, or a lookup that
 *   timed out, changes nothing, so a DNS blip never stops a tenant's mail;
 * - a `failed` domain verifies again the same way a pending one does;
 * - a `pending` domain stays pending; after 72 hours its scheduled checks stop.
 */
export function applyRecordChecks(
  current: StoredDomain,
  results: readonly RecordLookupResult[],
  now: Date,
): DomainChange {
  const dkim = applyDkimChecks(current.dkim, results, now)
  const checks = results.map((result) => storedCheck(current.checks, result, now))
  const returnPath = checks.find((check) => check.purpose === 'return-path')
  const ownership = checks.find((check) => check.purpose === 'ownership')
  const signer = signingKey(dkim)
  const usable =
    signer !== null &&
    returnPath?.status === 'verified' &&
    (current.ownershipToken === null || ownership?.status === 'verified')

  let status: DomainStatus
  let failureReason: string | null = null
  if (usable) {
    status = 'verified'
  } else if (current.status === 'verified') {
    const broken = whyBroken(current, dkim, checks)
    status = broken === null ? 'verified' : 'failed'
    failureReason = broken
  } else if (current.status === 'failed') {
    status = 'failed'
    failureReason = whyBroken(current, dkim, checks) ?? whyNotUsable(current, dkim, checks)
  } else {
    status = 'pending'
  }

  const removed = current.dkim.retired
    .map((key) => key.selector)
    .filter((selector) => !dkim.retired.some((key) => key.selector === selector))
  const nextCheckAt = nextCheck({ ...current, dkim }, status, checks, now)
  if (status === 'pending' && nextCheckAt === null) failureReason = PENDING_TIMED_OUT_REASON
  return {
    status,
    dkim,
    checks,
    failureReason,
    checkCount: status === current.status ? current.checkCount + 1 : 1,
    verifiedAt: status === 'verified' && current.status !== 'verified' ? now : current.verifiedAt,
    lastCheckedAt: now,
    nextCheckAt,
    ...(removed.length > 0 ? { removeKeys: removed } : {}),
    releaseHeld: status === 'verified' && current.status !== 'verified',
  }
}

function applyDkimChecks(
  state: DkimRotationState,
  results: readonly RecordLookupResult[],
  now: Date,
): DkimRotationState {
  // The active key first: when its record and a rotation's new one are checked together, the new
  // key's promotion then starts from the active key's latest count.
  const order = (selector: string | undefined) => (selector === state.active?.selector ? 0 : 1)
  const dkimResults = results
    .filter((result) => result.record.purpose === 'dkim' && result.record.selector !== undefined)
    .sort((a, b) => order(a.record.selector) - order(b.record.selector))
  let next = state
  for (const result of dkimResults) {
    const selector = result.record.selector as string
    const transition = nextRotationState(next, { type: 'record-checked', selector, check: result.check }, now)
    if (transition.ok) next = transition.state
  }
  const pruned = nextRotationState(next, { type: 'prune-retired' }, now)
  return pruned.ok ? pruned.state : next
}

function storedCheck(
  previous: readonly DomainRecordCheck[],
  result: RecordLookupResult,
  now: Date,
): DomainRecordCheck {
  const { record, check } = result
  const before = checkOf(previous, record)
  const failedBefore = before?.failedChecks ?? 0
  const failedChecks = check.inconclusive ? failedBefore : check.status === 'verified' ? 0 : failedBefore + 1
  return {
    purpose: record.purpose,
    ...(record.selector !== undefined ? { selector: record.selector } : {}),
    status: check.status,
    ...(result.found !== undefined && check.status === 'failed' ? { found: result.found } : {}),
    reason: check.reason,
    checkedAt: now,
    failedChecks,
  }
}

/** Why a domain that verified must stop sending, or null while one bad check is forgiven. */
function whyBroken(
  current: StoredDomain,
  dkim: DkimRotationState,
  checks: readonly DomainRecordCheck[],
): string | null {
  if (signingKey(dkim) === null) {
    const selector = dkim.active?.selector
    const check = checks.find((entry) => entry.purpose === 'dkim' && entry.selector === selector)
    const name = `${selector}._domainkey.${current.name}`
    return `the DKIM record ${name} did not verify in ${dkim.activeFailedChecks} checks in a row (${check?.reason ?? 'not checked'}); mail from this domain is held until it verifies again`
  }
  const returnPath = checks.find((check) => check.purpose === 'return-path')
  if (returnPath && (returnPath.failedChecks ?? 0) >= RETURN_PATH_FAILED_CHECKS_TO_FAIL) {
    return `the return-path record ${current.returnPathLabel}.${current.name} did not verify in ${returnPath.failedChecks} checks in a row (${returnPath.reason}); mail from this domain is held until it verifies again`
  }
  return null
}

/** A failed domain that is not broken in the ways above still lacks something; name it. */
function whyNotUsable(
  current: StoredDomain,
  dkim: DkimRotationState,
  checks: readonly DomainRecordCheck[],
): string {
  const missing = checks.filter(
    (check) =>
      check.status !== 'verified' &&
      (check.purpose === 'return-path' ||
        check.purpose === 'ownership' ||
        (check.purpose === 'dkim' && check.selector === dkim.active?.selector)),
  )
  const reasons = missing.map((check) => check.reason).filter((reason) => reason !== undefined)
  return reasons.length > 0
    ? `${current.name} is not verified yet: ${reasons.join('; ')}`
    : `${current.name} is not verified yet`
}

function nextCheck(
  domain: StoredDomain,
  status: DomainStatus,
  checks: readonly DomainRecordCheck[],
  now: Date,
): Date | null {
  const at = (ms: number) => new Date(now.getTime() + ms)
  const within = (since: Date) => now.getTime() - since.getTime() < PENDING_CHECK_WINDOW_MS
  if (status === 'pending') return within(domain.createdAt) ? at(PENDING_CHECK_EVERY_MS) : null
  const rotation = domain.dkim.active !== null ? domain.dkim.pending : null
  if (rotation && within(rotation.createdAt)) return at(PENDING_CHECK_EVERY_MS)
  const suspect =
    status === 'verified' &&
    (domain.dkim.activeFailedChecks > 0 ||
      checks.some((check) => check.purpose === 'return-path' && (check.failedChecks ?? 0) > 0))
  return at(suspect ? SUSPECT_CHECK_EVERY_MS : SETTLED_CHECK_EVERY_MS)
}
