export { type AddDomainInput, addDomain, newDomainSchema, parseNewDomain } from './add-domain'
export {
  applyRecordChecks,
  PENDING_CHECK_EVERY_MS,
  PENDING_CHECK_WINDOW_MS,
  PENDING_TIMED_OUT_REASON,
  RETURN_PATH_FAILED_CHECKS_TO_FAIL,
  type RecordLookupResult,
  SETTLED_CHECK_EVERY_MS,
  SUSPECT_CHECK_EVERY_MS,
} from './apply-record-checks'
export {
  type CheckDueDomainsOptions,
  type CheckDueDomainsResult,
  checkDueDomains,
  DEFAULT_CHECK_DUE_OPTIONS,
} from './check-due-domains'
export { deleteDomain } from './delete-domain'
export {
  type DomainRecordView,
  type ExpectedDomainRecord,
  expectedDomainRecords,
  OWNERSHIP_RECORD_LABEL,
  OWNERSHIP_VALUE_PREFIX,
} from './domain-records'
export { type DomainView, domainView } from './domain-view'
export { type DomainQuery, getDomain } from './get-domain'
export { listDomains } from './list-domains'
export type {
  AddDomainDeps,
  DeleteOutcome,
  DnsLookup,
  DomainChange,
  DomainDeps,
  DomainInsert,
  DomainPublicKey,
  DomainRecordCheck,
  DomainSettings,
  DomainStore,
  NewDkimKey,
  StoredDomain,
} from './ports'
export { rotateDkim } from './rotate-dkim'
export { DEFAULT_RETURN_PATH_LABEL, newDkimSelector } from './selector'
export { checkDomain, type VerifyDomainDeps, type VerifyDomainResult, verifyDomain } from './verify-domain'
