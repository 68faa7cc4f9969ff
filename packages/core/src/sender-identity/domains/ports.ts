import type { Clock } from '../../accept/ports'
import type { AuditOf, AuditRecord } from '../../audit/audit-record'
import type { DomainRecordPurpose, DomainStatus } from '../../domain/statuses'
import type { KeyEncryptionKey } from '../dkim-keys'
import type { DkimRotationState } from '../dkim-rotation'
import type { DnsAnswer, DnsRecordType, RecordStatus } from '../dns-records'

/** The last check of one record, as stored with the domain and shown with its records. */
export interface DomainRecordCheck {
  purpose: DomainRecordPurpose
  /** The DKIM selector of a `dkim` check: a rotating domain has two (three with a retired key). */
  selector?: string
  status: RecordStatus
  /** What a wrong record holds (the TXT text, the CNAME target), so the tenant can compare. */
  found?: string
  reason?: string
  checkedAt: Date
  /**
   * Consecutive conclusive checks that did not verify (return path): a verified domain fails only
   * after the second, as its DKIM key does in the rotation reducer. Lookups that failed count neither way.
   */
  failedChecks?: number
}

/** A domain's DKIM key as the use cases see it: never the private key. */
export interface DomainPublicKey {
  selector: string
  /** Base64 SubjectPublicKeyInfo: the `p=` of the record. */
  publicKey: string
  createdAt: Date
}

export interface StoredDomain {
  id: string
  tenantId: string
  name: string
  status: DomainStatus
  returnPathLabel: string
  /** Set when another tenant already had the name when this row was added: the ownership record is then required. */
  ownershipToken: string | null
  dkim: DkimRotationState
  keys: DomainPublicKey[]
  checks: DomainRecordCheck[]
  failureReason: string | null
  checkCount: number
  verifiedAt: Date | null
  lastCheckedAt: Date | null
  nextCheckAt: Date | null
  createdAt: Date
}

/** A new DKIM key, its private half already encrypted (`encryptPrivateKey`). */
export interface NewDkimKey {
  selector: string
  publicKey: string
  privateKeyCiphertext: string
  encryptionKeyId: string
}

/** What a locked update writes; fields left out stay as they are. */
export interface DomainChange {
  status?: DomainStatus
  dkim?: DkimRotationState
  checks?: DomainRecordCheck[]
  failureReason?: string | null
  checkCount?: number
  verifiedAt?: Date | null
  lastCheckedAt?: Date | null
  nextCheckAt?: Date | null
  addKey?: NewDkimKey
  /** Keys whose records may be gone from DNS (retired keys past their removal date). */
  removeKeys?: string[]
  /**
   * Puts the domain's `held` messages back on the normal send path in the same transaction:
   * campaign mail to `pending` (the pacer releases it), API mail to `queued` with an outbox row.
   */
  releaseHeld?: boolean
}

export interface DeleteOutcome {
  deleted: boolean
  /** Messages from the domain still pending, queued, sending or held (nothing is deleted then). */
  openMessages: number
}

/** What `insertDomain` did: the domain, or why nothing was written. */
export type DomainInsert =
  | { kind: 'created'; domain: StoredDomain }
  | { kind: 'name_taken' }
  /** The tenant already holds `count` domains, at least `maxDomains`. */
  | { kind: 'limit'; count: number }

/** What the domain use cases need from PostgreSQL (`@fairlane/db/queries/sending-domains`). */
export interface DomainStore {
  /**
   * Inserts the domain with its first key. Nothing is written when the tenant already has the name
   * or holds `maxDomains` domains. `ownershipToken` is stored only when another tenant already has a row for the name, decided
   * under a lock on the name so two tenants adding it at the same moment cannot both skip it.
   */
  insertDomain(
    input: {
      tenantId: string
      name: string
      returnPathLabel: string
      ownershipToken: string
      dkim: DkimRotationState
      key: NewDkimKey
      nextCheckAt: Date
      /** MAX_DOMAINS_PER_TENANT: counted with the insert under a lock on the tenant. */
      maxDomains: number
    },
    audit?: AuditOf<StoredDomain>,
  ): Promise<DomainInsert>
  findDomain(query: { tenantId: string; domainId: string }): Promise<StoredDomain | null>
  countDomains(query: { tenantId: string }): Promise<number>
  listDomains(query: { tenantId: string }): Promise<StoredDomain[]>
  /**
   * Locks the row, hands it to `change` and writes what that returns (nothing for null), all in one
   * transaction; answers the row as it is afterwards, or null when it does not exist. `change` may
   * throw (an `AppError`): nothing is written then. `audit` is written with the change (not when
   * `change` answers null).
   */
  updateDomain(
    query: { tenantId: string; domainId: string },
    change: (current: StoredDomain) => DomainChange | null,
    audit?: AuditOf<StoredDomain>,
  ): Promise<{ domain: StoredDomain; releasedMessages: number } | null>
  /** Deletes the domain (and its keys) unless mail from it is still open; both decided under one lock. */
  deleteDomain(
    query: { tenantId: string; domainId: string },
    audit?: AuditRecord,
  ): Promise<DeleteOutcome | null>
  /**
   * The scheduler's claim: up to `limit` domains due (next_check_at <= now), each leased by moving
   * its next_check_at `leaseMs` ahead in the claiming statement (SKIP LOCKED), so two workers never
   * check one domain at once and a worker that dies leaves it to be checked again after the lease.
   * Fair across tenants: each tenant's oldest due first, in turns, at most `perTenant` of one tenant.
   */
  claimDueDomains(input: {
    limit: number
    leaseMs: number
    perTenant: number
  }): Promise<{ tenantId: string; domainId: string }[]>
}

/** One DNS lookup (`@fairlane/mail/dns`): the answer in node:dns's shape, or its error code. */
export interface DnsLookup {
  lookup(query: { type: DnsRecordType; name: string }): Promise<DnsAnswer>
}

export interface DomainSettings {
  /** RETURN_PATH_HOST: what every tenant's return-path CNAME points to. */
  returnPathHost: string
}

export interface DomainDeps {
  store: DomainStore
  dns: DnsLookup
  clock: Clock
  settings: DomainSettings
}

export interface AddDomainDeps extends DomainDeps {
  /** DKIM_ENCRYPTION_KEY: the first encrypts new private keys. */
  encryptionKeys: readonly KeyEncryptionKey[]
  /** MAX_DOMAINS_PER_TENANT: each domain is an RSA-2048 key and DNS checks, so their number is bounded. */
  maxDomains: number
}
