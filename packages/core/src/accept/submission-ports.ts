import type { Lane } from '../domain/lanes'
import type { SenderDomains } from '../senders/ports'
import type { PlanAdmissionDeps } from './admit-by-plan'
import type { QuotaUsage } from './admit-by-quota'
import type { AcceptedMessage, Clock } from './ports'

/** One recipient of a submission: a message row of its own, all sharing one stored raw message. */
export interface NewSubmittedMessage {
  id: string
  toAddress: string
  /** `<Idempotency-Key>:<recipient>`, or null. */
  idempotencyKey: string | null
}

export interface NewSubmission {
  tenantId: string
  lane: Exclude<Lane, 'bulk'>
  messages: NewSubmittedMessage[]
  /** The header From as resolved; null: the platform's MAIL_FROM with the tenant's name. */
  fromAddress: string | null
  sendingDomainId: string | null
  subject: string | null
  /** `{ tags }` when the submission named any (`X-Fairlane-Tags`); the API has no tags of its own. */
  variables: Record<string, unknown> | null
  /** SHA-256 of the stored raw message: a retry with the same key and another message is refused. */
  requestHash: string
  /** The DATA as submitted (CRLF, control headers removed). */
  raw: Buffer
  /** The DATA's size as received, in bytes. */
  sizeBytes: number
  queuedAt: Date
}

/**
 * PostgreSQL for `acceptSubmission` (`@fairlane/db/queries/submissions`). `insertSubmission` writes,
 * atomically, for each message its row (status `queued`, source `smtp`), its `message_contents` row,
 * its `accepted` event and its outbox row, and counts them in the tenant's usage, and wakes the relay;
 * a message whose idempotency key is already taken is left out. Answers the ids it inserted.
 * With `admitQuota` (a tenant with a quota), the write runs in a transaction that first takes the
 * tenant's quota lock and reads its usage (as `acceptMessage`'s does), and `admitQuota` may refuse
 * (throw) before anything is written.
 */
export interface SubmissionStore {
  findByIdempotencyKey(query: { tenantId: string; idempotencyKey: string }): Promise<AcceptedMessage | null>
  insertSubmission(submission: NewSubmission, admitQuota?: (usage: QuotaUsage) => void): Promise<string[]>
}

/** The sending domains as submission checks them: the tenant's own, and whether it has any. */
export interface SubmissionDomains extends SenderDomains {
  /** Whether the tenant has at least one verified sending domain. */
  hasVerifiedDomain(query: { tenantId: string }): Promise<boolean>
}

export interface SubmissionDeps {
  store: SubmissionStore
  domains: SubmissionDomains
  clock: Clock
  /** The plan's accept buckets, as `acceptMessage`'s; left out, nothing is refused for the plan. */
  planAdmission?: PlanAdmissionDeps
}
