export {
  DKIM_KEY_BITS,
  type DkimKeyPair,
  decryptPrivateKey,
  dkimRecordValue,
  type EncryptedPrivateKey,
  encryptPrivateKey,
  generateDkimKeyPair,
  type KeyEncryptionKey,
  loadSigningKey,
} from './dkim-keys'
export {
  type DkimKey,
  type DkimRotationState,
  FAILED_CHECKS_TO_HOLD,
  initialRotationState,
  nextRotationState,
  RETIRED_RECORD_KEPT_MS,
  type RetiredDkimKey,
  type RotationEvent,
  type RotationPhase,
  type RotationTransition,
  rotationPhase,
  signingKey,
} from './dkim-rotation'
export {
  compareDnsRecord,
  type DnsAnswer,
  type DnsRecordType,
  type ExpectedDnsRecord,
  type MxAnswer,
  type RecordCheck,
  type RecordStatus,
} from './dns-records'
export { checkDomainName, type DomainNameCheck } from './domain-name'
// Sending domains: the use cases (add, list, get, verify, rotate, delete, the scheduler's checks).
export * from './domains'
export {
  type DkimKeyCiphertextStore,
  REKEY_BATCH_SIZE,
  type RekeyDkimKeysResult,
  rekeyDkimKeys,
  type StoredDkimPrivateKey,
} from './rekey-dkim-keys'
export {
  buildReturnPath,
  DEFAULT_RETURN_PATH_PREFIX,
  parseReturnPath,
  type ReturnPathInput,
} from './return-path'
