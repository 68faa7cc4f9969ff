/**
 * The domain as the Domains page shows it (core's `DomainView`, what `/api/v1/domains` answers).
 * Temporary local copy until the domains use cases land; then `import type` from core.
 */
export interface DomainRecordView {
  purpose: 'dkim' | 'return-path' | 'spf' | 'dmarc' | 'ownership'
  type: 'TXT' | 'CNAME'
  name: string
  value: string
  required: boolean
  selector?: string
  removableAfter?: Date
  status: 'pending' | 'verified' | 'failed'
  found?: string
  reason?: string
}

export interface DomainView {
  id: string
  name: string
  status: 'pending' | 'verified' | 'failed'
  records: DomainRecordView[]
  failureReason: string | null
  dkim: {
    phase: 'awaiting-first-record' | 'active' | 'rotating' | 'held'
    signingSelector: string | null
    pendingSelector: string | null
  }
  createdAt: Date
  verifiedAt: Date | null
  lastCheckedAt: Date | null
  nextCheckAt: Date | null
}
