import type { Clock } from '../accept/ports'
import type { MessageStatus } from '../domain/statuses'
import { parseReturnPath } from '../sender-identity/return-path'
import { countSoftBounce } from './count-soft-bounce'
import type { BounceRecipient, Feedback } from './feedback-mail'
import type { FeedbackMessage, FeedbackStore, FeedbackTransaction } from './ports'

export interface ApplyFeedbackInput {
  /** The envelope recipient the report came to: a VERP return path. */
  recipient: string
  feedback: Feedback
}

export interface ApplyFeedbackDeps {
  store: FeedbackStore
  clock: Clock
  returnPath: {
    /** UNSUBSCRIBE_SECRET's secrets, the signing one first (the worker signs return paths with it). */
    secrets: readonly string[]
    /** BOUNCE_DOMAIN: the return-path host of mail from the platform's own sender. */
    bounceDomain: string
  }
  softBounce: { limit: number; windowDays: number }
}

/** Every way a report can end, as the inbound metrics count them. */
export const INBOUND_KINDS = [
  'hard-bounce',
  'soft-bounce',
  'complaint',
  'auto-reply',
  'ignored',
  'unparseable',
  'forged',
  'unknown-message',
] as const
export type InboundKind = (typeof INBOUND_KINDS)[number]

export type FeedbackOutcome =
  /** The return path does not verify, or names a message of another tenant than its host's: nothing changed. */
  | { kind: 'forged'; reason: 'bad-return-path' | 'tenant-mismatch'; messageId?: string }
  /** Genuine return path, but the message is gone (deleted with its tenant, or never existed). */
  | { kind: 'unknown-message'; messageId: string }
  | {
      kind: 'hard-bounce' | 'soft-bounce' | 'complaint'
      messageId: string
      tenantId: string
      /** The same report was applied before: nothing was written this time. */
      duplicate: boolean
      suppressed: boolean
      /**
       * The message is not `sent` yet (its send is still being recorded): the event and the
       * suppression are in, and its status must be settled once the send is (`settleFeedbackStatuses`).
       */
      statusPending: boolean
    }
  | { kind: 'auto-reply' | 'ignored' | 'unparseable'; messageId: string; tenantId: string; reason: string }

/** Not yet recorded as sent: a report can overtake the worker's commit of a send the remote accepted. */
const NOT_YET_SENT: readonly MessageStatus[] = ['pending', 'queued', 'sending', 'held']

/**
 * Applies what came back to a return path to the message it names, in one transaction: the event,
 * the message's status (`bounced` for a hard bounce, `complained`), and the address's fate: a hard
 * bounce suppresses it on every lane, a complaint suppresses it and unsubscribes the contact, a soft
 * bounce is counted and suppresses only at the limit. A report is applied only to a message of the
 * tenant its return-path host belongs to.
 *
 * A message takes at most one `bounced` event of each kind (a delay, then the final hard failure)
 * and one `complained`, however many reports arrive: the first is kept, later ones are `duplicate`
 * and write nothing, so reach no webhook. Whoever holds a return path can send any number of reports,
 * each with a Message-ID of its choosing; the report's identity cannot be what makes it new.
 */
export async function applyFeedback(
  input: ApplyFeedbackInput,
  deps: ApplyFeedbackDeps,
): Promise<FeedbackOutcome> {
  const verified = parseReturnPath(input.recipient, { secrets: deps.returnPath.secrets })
  if (verified === null) return { kind: 'forged', reason: 'bad-return-path' }
  const host = hostOf(input.recipient)
  return deps.store.transaction(async (tx) => {
    const message = await tx.findMessage({ messageId: verified.messageId })
    if (message === null) return { kind: 'unknown-message', messageId: verified.messageId }
    if (!(await hostBelongsToTenant(tx, host, message, deps.returnPath.bounceDomain))) {
      return { kind: 'forged', reason: 'tenant-mismatch', messageId: message.id }
    }
    const { feedback } = input
    const ids = { messageId: message.id, tenantId: message.tenantId }
    switch (feedback.kind) {
      case 'bounce':
        return applyBounce(tx, message, feedback, deps)
      case 'complaint':
        return applyComplaint(tx, message, feedback, deps)
      default:
        return { kind: feedback.kind, ...ids, reason: feedback.reason }
    }
  })
}

async function applyBounce(
  tx: FeedbackTransaction,
  message: FeedbackMessage,
  feedback: Extract<Feedback, { kind: 'bounce' }>,
  deps: ApplyFeedbackDeps,
): Promise<FeedbackOutcome> {
  const recipient = pickRecipient(feedback.recipients, message.toAddress)
  const kind = recipient.kind === 'hard' ? 'hard-bounce' : 'soft-bounce'
  const base = { kind, messageId: message.id, tenantId: message.tenantId } as const
  const written = await tx.recordEvent({
    ...ids(message),
    type: 'bounced',
    detail: {
      kind: recipient.kind,
      status: recipient.status,
      action: recipient.action,
      ...(recipient.diagnostic ? { diagnostic: recipient.diagnostic } : {}),
      ...(recipient.remoteMta ? { remoteMta: recipient.remoteMta } : {}),
      ...(feedback.reportingMta ? { reportingMta: feedback.reportingMta } : {}),
    },
    dedupeKey: `bounced:${recipient.kind}`,
  })
  if (!written) return { ...base, duplicate: true, suppressed: false, statusPending: false }
  if (recipient.kind === 'hard') {
    await tx.setStatus({ ...ids(message), status: 'bounced', from: ['sent'] })
    await tx.suppress({
      ...ids(message),
      email: message.toAddress.toLowerCase(),
      reason: 'hard-bounce',
      detail: recipient.diagnostic ?? `status ${recipient.status}`,
    })
    return {
      ...base,
      duplicate: false,
      suppressed: true,
      statusPending: NOT_YET_SENT.includes(message.status),
    }
  }
  const suppressed = await countSoftBounceOf(tx, message, recipient, deps)
  return { ...base, duplicate: false, suppressed, statusPending: false }
}

/**
 * One more soft bounce for the message's address (`countSoftBounce` decides); suppresses the address
 * when that reaches the limit. Answers whether it did.
 */
async function countSoftBounceOf(
  tx: FeedbackTransaction,
  message: FeedbackMessage,
  recipient: BounceRecipient,
  deps: ApplyFeedbackDeps,
): Promise<boolean> {
  const email = message.toAddress.toLowerCase()
  const now = deps.clock.now()
  const previous = await tx.lockSoftBounces({ tenantId: message.tenantId, email, now })
  const deliveredSinceLast =
    previous.softCount > 0 && previous.lastMessageId !== message.id
      ? await tx.deliveredSince({
          tenantId: message.tenantId,
          email,
          since: previous.lastSoftAt,
          exceptMessageId: message.id,
        })
      : false
  const count = countSoftBounce(previous, {
    now,
    messageId: message.id,
    deliveredSinceLast,
    limit: deps.softBounce.limit,
    windowDays: deps.softBounce.windowDays,
  })
  if (count.counted) await tx.saveSoftBounces({ tenantId: message.tenantId, email, record: count.record })
  if (count.suppress) {
    await tx.suppress({
      ...ids(message),
      email,
      reason: 'hard-bounce',
      detail: `${count.record.softCount} soft bounces within ${deps.softBounce.windowDays} days without a delivery; the last: ${recipient.diagnostic ?? `status ${recipient.status}`}`,
    })
  }
  return count.suppress
}

async function applyComplaint(
  tx: FeedbackTransaction,
  message: FeedbackMessage,
  complaint: Extract<Feedback, { kind: 'complaint' }>,
  deps: ApplyFeedbackDeps,
): Promise<FeedbackOutcome> {
  const base = { kind: 'complaint', messageId: message.id, tenantId: message.tenantId } as const
  const email = message.toAddress.toLowerCase()
  const written = await tx.recordEvent({
    ...ids(message),
    type: 'complained',
    detail: {
      feedbackType: complaint.feedbackType,
      ...(complaint.userAgent ? { userAgent: complaint.userAgent } : {}),
    },
    dedupeKey: 'complained',
  })
  if (!written) return { ...base, duplicate: true, suppressed: false, statusPending: false }
  await tx.setStatus({ ...ids(message), status: 'complained', from: ['sent', 'bounced'] })
  await tx.suppress({
    ...ids(message),
    email,
    reason: 'complaint',
    detail: `complaint (${complaint.feedbackType})${complaint.userAgent ? ` reported by ${complaint.userAgent}` : ''}`,
  })
  if (await tx.unsubscribeContact({ tenantId: message.tenantId, email, now: deps.clock.now() })) {
    await tx.recordEvent({
      ...ids(message),
      type: 'unsubscribed',
      detail: { source: 'complaint' },
      dedupeKey: 'unsubscribed:complaint',
    })
  }
  return { ...base, duplicate: false, suppressed: true, statusPending: NOT_YET_SENT.includes(message.status) }
}

/**
 * The recipient the message went to: the report's entry for its address (final or original), else
 * its first hard failure (an alias that forwarded to a dead mailbox is as dead), else its first entry.
 */
function pickRecipient(recipients: readonly BounceRecipient[], toAddress: string): BounceRecipient {
  const to = toAddress.toLowerCase()
  const own = recipients.find((r) => r.finalRecipient === to || r.originalRecipient === to)
  const chosen = own ?? recipients.find((r) => r.kind === 'hard') ?? recipients[0]
  if (!chosen) throw new RangeError('a bounce names at least one recipient')
  return chosen
}

/**
 * Whether the host the report came to may speak for the message's tenant. BOUNCE_DOMAIN carries
 * platform-sender mail of every tenant, so there the message's own tenant is the one. A tenant's
 * return-path host must be one of that tenant's domains; when no tenant has the domain any longer
 * (deleted after sending), the host must still be the message's own From domain's.
 */
async function hostBelongsToTenant(
  tx: FeedbackTransaction,
  host: string,
  message: FeedbackMessage,
  bounceDomain: string,
): Promise<boolean> {
  if (host === bounceDomain.toLowerCase()) return true
  const tenants = await tx.tenantsOfReturnPathHost({ host })
  if (tenants.length > 0) return tenants.includes(message.tenantId)
  const fromDomain = message.fromAddress ? domainOf(message.fromAddress) : undefined
  return fromDomain !== undefined && host.endsWith(`.${fromDomain}`)
}

function hostOf(address: string): string {
  return address
    .slice(address.lastIndexOf('@') + 1)
    .toLowerCase()
    .replace(/\.$/, '')
}

function domainOf(from: string): string | undefined {
  const match = /@([^@>\s]+)>?\s*$/.exec(from)
  return match?.[1]?.toLowerCase()
}

function ids(message: FeedbackMessage): { tenantId: string; messageId: string } {
  return { tenantId: message.tenantId, messageId: message.id }
}
