import type { DomainStatus } from '../../domain/statuses'
import { type RotationPhase, rotationPhase, signingKey } from '../dkim-rotation'
import { type DomainRecordView, domainRecordViews } from './domain-records'
import type { DomainSettings, StoredDomain } from './ports'

/** A domain as the API and the Domains page show it: never a private key or its ciphertext. */
export interface DomainView {
  id: string
  name: string
  status: DomainStatus
  records: DomainRecordView[]
  /** Why the domain is failed (or pending with checks stopped), in words the tenant can act on. */
  failureReason: string | null
  dkim: {
    phase: RotationPhase
    /** The selector mail is signed with now; null: nothing signs (mail from the domain is held). */
    signingSelector: string | null
    /** A rotation's new selector, waiting for its record to verify. */
    pendingSelector: string | null
  }
  createdAt: Date
  verifiedAt: Date | null
  lastCheckedAt: Date | null
  nextCheckAt: Date | null
}

export function domainView(domain: StoredDomain, settings: DomainSettings): DomainView {
  return {
    id: domain.id,
    name: domain.name,
    status: domain.status,
    records: domainRecordViews(domain, settings),
    failureReason: domain.failureReason,
    dkim: {
      phase: rotationPhase(domain.dkim),
      signingSelector: signingKey(domain.dkim),
      pendingSelector: domain.dkim.pending?.selector ?? null,
    },
    createdAt: domain.createdAt,
    verifiedAt: domain.verifiedAt,
    lastCheckedAt: domain.lastCheckedAt,
    nextCheckAt: domain.nextCheckAt,
  }
}
