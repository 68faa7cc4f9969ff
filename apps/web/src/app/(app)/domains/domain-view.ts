/**
 * The domain as the Domains page shows it: the shape `/api/v1/domains` answers.
 * Temporary local copy until the domains use cases land; then `import type` from core.
 */
export interface DomainRecordView {
  purpose: 'dkim' | 'return-path' | 'spf' | 'dmarc' | 'ownership'
  type: 'TXT' | 'CNAME' | 'MX'
  name: string
  value: string
  status: 'pending' | 'verified' | 'failed'
  required: boolean
  found?: string
  reason?: string
  selector?: string
  removableAfter?: string
}

export interface DomainView {
  id: string
  name: string
  status: 'pending' | 'verified' | 'failed'
  failureReason?: string | null
  records: DomainRecordView[]
  dkim: DkimView
  createdAt: string
}

/** Which key signs, and the rotation under way (the stored rotation state, instants as ISO strings). */
export interface DkimView {
  phase: 'awaiting-first-record' | 'active' | 'rotating' | 'held'
  active: { selector: string; createdAt: string } | null
  pending: { selector: string; createdAt: string } | null
  retired: { selector: string; retiredAt: string; removableAt: string }[]
}
