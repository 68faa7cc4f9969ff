import { suppressionStops } from '../domain/suppression-scopes'
import { MessageLockedError } from './message-locked-error'
import type {
  Admission,
  CampaignRenderer,
  ClaimedMessage,
  Clock,
  DeliveryLogger,
  DeliveryStore,
  HeldClaim,
  Mailer,
  OutgoingMail,
  SendJob,
} from './ports'
import { isPermanentFailure } from './send-failure'
import { UndeliverableMessageError } from './undeliverable-message-error'

export interface SendDeps {
  store: DeliveryStore
  mailer: Mailer
  clock: Clock
  /**
   * How long a claim is exclusive (SEND_LOCK_MS). Must exceed the mailer's worst case, deadline
   * included: a claim that expires mid-send lets a second attempt deliver the message again.
   */
  lockMs: number
  mailFrom: string
  /** The Message-ID header for a message id; derived, so every attempt sends the same one. */
  messageIdFor: (messageId: string) => string
  /** Campaign mail is rendered here, at send time; without one, campaign rows are undeliverable. */
  campaigns?: CampaignRenderer
  logger?: DeliveryLogger
}

export type SkipReason = 'already-sent' | 'terminal' | 'suppressed' | 'not-found'

export type SendOutcome =
  | {
      kind: 'sent'
      createdAt: Date
      /** When the SMTP server accepted it, by `deps.clock`. */
      acceptedAt: Date
      /** False when our claim had been taken over before we could record the send (see below). */
      recorded: boolean
    }
  | { kind: 'skipped'; reason: SkipReason }
  /** The bucket had no token: nothing was sent, the claim was given back; try again after `delayMs`. */
  | { kind: 'deferred'; delayMs: number }

/**
 * Delivers one message at most once per successful claim. The claim (a fresh lock token with an
 * expiry) is taken before sending and the row is marked sent only by the token's holder; a caught
 * transient failure releases the claim at once so the retry is not refused, while a crash leaves it
 * to expire and be reclaimed. Never "mark first, then send": a failure after the mark would lose
 * the mail. The one gap left is a crash between the server's accept and our mark, which resends
 * with the same Message-ID so the receiver can recognise it.
 */
export async function sendMessage(
  job: SendJob,
  deps: SendDeps,
  /**
   * Takes the tenant's token. Asked as late as possible — claimed, composed, and by the mailer once
   * an SMTP connection is free — so the bucket's bound holds where the mail leaves, give or take one
   * SMTP exchange, and a message with nothing to send (sent, suppressed, held elsewhere) spends none.
   */
  admit?: () => Promise<Admission>,
): Promise<SendOutcome> {
  const message = await deps.store.claim({ ...job, lockMs: deps.lockMs })
  if (!message) return explainUnclaimed(job, deps.store)
  const claim: HeldClaim = { ...job, lockToken: message.lockToken }

  // An unsubscribe stops campaign mail only; a bounce, a complaint or a manual entry stops every lane.
  const suppressed = suppressionStops(message.recipientSuppression, message.lane)
  if (suppressed || message.recipientUnsubscribed) {
    await deps.store.markSuppressed({
      ...claim,
      reason: message.recipientUnsubscribed
        ? 'the contact unsubscribed'
        : `recipient is on the tenant suppression list (scope: ${message.recipientSuppression})`,
    })
    return { kind: 'skipped', reason: 'suppressed' }
  }

  try {
    const handedOff = await deps.mailer.send(await composeMail(message, deps), admit)
    if (!handedOff.ok) {
      await giveBack(claim, deps)
      return { kind: 'deferred', delayMs: handedOff.delayMs }
    }
  } catch (error) {
    throw await settleFailure(error, message, claim, deps)
  }
  const acceptedAt = deps.clock.now()
  const recorded = await withRetries(() => deps.store.markSent(claim))
  if (!recorded) {
    // Our lock expired mid-send and another attempt claimed the row: it will send (same Message-ID)
    // and record the outcome. Counted as sent: the server did accept ours.
    deps.logger?.warn({ messageId: job.messageId, tenantId: job.tenantId }, 'send claim was taken over')
  }
  return { kind: 'sent', createdAt: message.createdAt, acceptedAt, recorded }
}

/** A claim that sent nothing. If giving it back fails, it expires (SEND_LOCK_MS) and is reclaimed then. */
async function giveBack(claim: HeldClaim, deps: SendDeps): Promise<void> {
  try {
    await deps.store.unclaim(claim)
  } catch (error) {
    deps.logger?.error(
      { messageId: claim.messageId, err: (error as Error).message },
      'could not give back an unused send claim',
    )
  }
}

/** No claim: the row is done, gone, or someone else holds a live claim (then retry later). */
async function explainUnclaimed(job: SendJob, store: DeliveryStore): Promise<SendOutcome> {
  const state = await store.readState(job)
  if (!state) return { kind: 'skipped', reason: 'not-found' }
  if (state.status === 'sent') return { kind: 'skipped', reason: 'already-sent' }
  if (state.status === 'failed' || state.status === 'suppressed' || state.status === 'cancelled')
    return { kind: 'skipped', reason: 'terminal' }
  // 'sending' with a live lock, or a row that changed hands between our claim and this read.
  throw new MessageLockedError(job.messageId, Math.max(0, Math.ceil(state.lockRemainingMs ?? 0)))
}

/**
 * Records a failed send and returns the error to throw. Permanent: suppress first (so a crash before
 * the row is marked still leaves the address suppressed for the reclaiming attempt), then mark
 * failed. Transient: release the claim at once; the retry must not wait out the lock.
 */
async function settleFailure(
  error: unknown,
  message: ClaimedMessage,
  claim: HeldClaim,
  deps: SendDeps,
): Promise<unknown> {
  const reason = error instanceof Error ? error.message : String(error)
  if (isPermanentFailure(error)) {
    if (error.suppressRecipient) {
      await deps.store.suppress({
        tenantId: message.tenantId,
        email: message.toAddress,
        reason: 'hard-bounce',
        messageId: message.id,
      })
    }
    await deps.store.markFailed({ ...claim, error: reason })
    return error
  }
  try {
    await deps.store.release({ ...claim, error: reason })
  } catch (releaseError) {
    // The lock then simply expires; the retry waits for it instead of failing twice.
    deps.logger?.error(
      { messageId: message.id, err: (releaseError as Error).message },
      'could not release the send claim',
    )
  }
  return error
}

async function composeMail(message: ClaimedMessage, deps: SendDeps): Promise<OutgoingMail> {
  const envelope = { from: deps.mailFrom, to: message.toAddress, messageId: deps.messageIdFor(message.id) }
  if (message.campaignId !== null) {
    if (!deps.campaigns) throw new UndeliverableMessageError('this worker cannot render campaign mail')
    if (!message.contact) throw new UndeliverableMessageError('the campaign contact no longer exists')
    const rendered = await deps.campaigns.render({
      tenantId: message.tenantId,
      campaignId: message.campaignId,
      messageId: message.id,
      toAddress: message.toAddress,
      contact: message.contact,
    })
    return { ...envelope, ...rendered }
  }
  if (message.subject === null || (message.html === null && message.text === null)) {
    throw new UndeliverableMessageError('message has no rendered subject and body')
  }
  return {
    ...envelope,
    subject: message.subject,
    ...(message.html !== null ? { html: message.html } : {}),
    ...(message.text !== null ? { text: message.text } : {}),
    // RFC 3834: codes and resets are machine-sent; auto-responders must not answer them.
    headers: { 'Auto-Submitted': 'auto-generated' },
  }
}

/**
 * The server already accepted the mail: failing to record that (a database blip) would resend it
 * once the lock expires. A few quick retries cover a blip; a longer outage still throws.
 */
async function withRetries<T>(operation: () => Promise<T>, delaysMs = [100, 500, 2_000]): Promise<T> {
  for (const delayMs of delaysMs) {
    try {
      return await operation()
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
  }
  return operation()
}
