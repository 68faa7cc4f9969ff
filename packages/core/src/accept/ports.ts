import type { Lane } from '../domain/lanes'
import type { FieldIssue } from '../errors/app-error'
import type { MessagePublishEvent } from '../outbox/events'
import type { SenderChoice, SenderDomains } from '../senders/ports'
import type { PlanAdmissionDeps } from './admit-by-plan'
import type { QuotaUsage } from './admit-by-quota'
import type { AttachmentRules, NewAttachment } from './attachments'
import type { MessageContent } from './message-request'
import type { TenantPlans } from './tenant-plans'

/**
 * What `acceptMessage` needs from the outside, as interfaces: PostgreSQL (via drizzle in
 * `@fairlane/db/queries/accept-message`), the template renderer (`@fairlane/mail/templates`), the
 * per-recipient limiter (Redis with an in-memory fallback, in the web app) and a clock.
 */

/** What an accepted message looks like when it is found again by its idempotency key. */
export interface AcceptedMessage {
  id: string
  lane: Lane
  requestHash: string | null
  createdAt: Date
  /** Set when it was accepted scheduled: a replay answers `scheduled` as the first answer did. */
  sendAt?: Date | null | undefined
}

export interface NewQueuedMessage {
  /** Chosen by the use case, so the outbox event can name the message in the same statement. */
  id: string
  tenantId: string
  lane: Lane
  toAddress: string
  subject: string
  html: string | null
  text: string
  template: string | null
  /** The tenant template's version it was rendered from; absent for built-in and custom mail. */
  templateVersion?: number | null | undefined
  variables: Record<string, unknown> | null
  /** The From header as resolved (`resolveSender`); null: the platform's MAIL_FROM with the tenant's name. */
  fromAddress?: string | null | undefined
  replyTo?: string | null | undefined
  /** The domain that signs it; set exactly when `fromAddress` is. */
  sendingDomainId?: string | null | undefined
  idempotencyKey: string | null
  requestHash: string
  queuedAt: Date
  /** Asked for in the request; the tenant's privacy switch is applied at send time. */
  trackOpens?: boolean | undefined
  trackClicks?: boolean | undefined
  /**
   * A scheduled send's time: the row is written `scheduled` with an event `scheduled` and no outbox
   * row (the releaser writes it when the time comes); absent or null: `queued` now.
   */
  sendAt?: Date | null | undefined
  /** The way in (`api`, `smtp`, `batch`, …), stored as `messages.source`. */
  source?: string | undefined
  /** Written with the message, in the same statement (`message_attachments`), in this order. */
  attachments?: readonly NewAttachment[] | undefined
  /**
   * The rendered subject and body and the decoded attachments, in bytes: `messages.size_bytes` and
   * what usage counts (`tenant_usage_days.accepted_bytes`).
   */
  sizeBytes?: number | undefined
}

/** `messages.source`: the way in that accepted a message (campaign mail has none). */
export type MessageSource = 'api' | 'batch' | 'smtp' | 'app'

/** What both the store and a transaction of it can do. */
export interface AcceptWriter {
  findByIdempotencyKey(query: { tenantId: string; idempotencyKey: string }): Promise<AcceptedMessage | null>
  /**
   * Inserts the message in status `queued` together with its outbox event, and wakes the relay
   * (NOTIFY; inside a transaction PostgreSQL delivers it at commit and drops it on rollback).
   * Returns false, writing nothing, when the idempotency key is already taken: the unique constraint
   * decides, so concurrent requests with one key make one row. A concurrent insert of the same key
   * is waited for (commit or rollback) before deciding.
   */
  insertQueuedMessage(message: NewQueuedMessage, event: MessagePublishEvent): Promise<boolean>
}

export interface AcceptStore extends AcceptWriter {
  /** Runs `work` in one database transaction: everything it writes commits together or not at all. */
  transaction<T>(work: (tx: AcceptTransaction) => Promise<T>): Promise<T>
}

export interface AcceptTransaction extends AcceptWriter {
  /** Frees a key whose message is older than `createdBefore`, so it can name a new message. */
  releaseIdempotencyKey(query: {
    tenantId: string
    idempotencyKey: string
    createdBefore: Date
  }): Promise<void>
  /**
   * Takes the tenant's quota lock until the transaction ends and reads what it has accepted in `now`'s
   * UTC day and calendar month: accepts of one tenant with a quota run one after another from here on.
   */
  lockQuotaUsage(query: { tenantId: string; now: Date }): Promise<QuotaUsage>
}

export interface RenderedMessage {
  subject: string
  html: string | null
  text: string
  /** The template name or slug, or null for custom content. */
  template: string | null
  /** The tenant template's version, when rendered from one. */
  templateVersion?: number | null | undefined
  variables: Record<string, unknown> | null
  /** A tenant template's saved From / Reply-To: used when the request names none. */
  sender?: SenderChoice | undefined
}

export type RenderOutcome = { ok: true; message: RenderedMessage } | { ok: false; issues: FieldIssue[] }

export interface MessageRenderer {
  render(query: { tenantId: string; content: MessageContent }): Promise<RenderOutcome>
}

export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number }

export interface RecipientLimiter {
  /** Takes one send from the recipient's allowance; the address arrives lowercased. */
  consume(query: { tenantId: string; address: string }): Promise<LimitDecision>
}

export interface Clock {
  now(): Date
}

export interface AcceptDeps {
  store: AcceptStore
  renderer: MessageRenderer
  recipientLimiter: RecipientLimiter
  /** The tenant's sending domains, for the request's `from` (and the saved senders' domain ids). */
  senderDomains: SenderDomains
  clock: Clock
  /** The tenant's lane plans and accept buckets (`admit-by-plan.ts`); without it nothing is refused for the plan. */
  planAdmission?: PlanAdmissionDeps
  /** Each tenant's plan (transactional part, quotas), cached; left out: `planAdmission.tenantPlans`, else defaults. */
  tenantPlans?: TenantPlans
  /** MAX_MESSAGE_BYTES and ATTACHMENT_BLOCKED_EXTENSIONS; core's defaults when left out. */
  attachmentRules?: AttachmentRules
}
