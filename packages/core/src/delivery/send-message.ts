import { TERMINAL_MESSAGE_STATUSES } from '../domain/statuses'
import { suppressionStops } from '../domain/suppression-scopes'
import { buildReturnPath } from '../sender-identity/return-path'
import { deliveryErrorCodeOf } from './delivery-error-code'
import { ExpiredMessageError } from './expired-message-error'
import { MessageLockedError } from './message-locked-error'
import type {
  CampaignRenderer,
  ClaimedMessage,
  Clock,
  DeliveryLogger,
  DeliveryState,
  DeliveryStore,
  FailureNote,
  HeldClaim,
  KeptContent,
  Mailer,
  MailTracker,
  OutgoingMail,
  ReceiverAsk,
  ReceiverGate,
  ReceiverRoute,
  SenderSigner,
  SenderSigning,
  SendGate,
  SendJob,
} from './ports'
import { isOutcomeUnknown, isPermanentFailure } from './send-failure'
import { SendNotRecordedError } from './send-not-recorded-error'
import { SigningFailedError } from './signing-failed-error'
import { UndeliverableMessageError } from './undeliverable-message-error'
import { withRetries } from './with-retries'

/** A domain verified in the database while the signer still answers "hold": try again this soon. */
const STALE_HOLD_RETRY_MS = 1_000

export interface SendDeps {
  store: DeliveryStore
  /** SMTP: a connection is reserved first, and the mail sent on it once the gate admitted it. */
  mailer: Mailer
  /**
   * The tenant's token. Asked as late as possible — claimed, composed, and an SMTP connection held —
   * so the bucket's bound holds where the mail leaves, give or take one SMTP exchange, and a message
   * with nothing to send (sent, suppressed, held elsewhere) spends none.
   */
  gate: SendGate
  clock: Clock
  /**
   * How long a claim is exclusive (SEND_LOCK_MS). Must exceed the mailer's worst case, deadline
   * included: a claim that expires mid-send lets a second attempt deliver the message again.
   */
  lockMs: number
  /** MAIL_FROM: the From address of platform-sender mail (the tenant's name as display name). */
  mailFrom: string
  /**
   * The VERP return path of every message: `bounceDomain` (BOUNCE_DOMAIN) is its host for platform
   * mail; `secret` (the first UNSUBSCRIBE_SECRET key's) authenticates it.
   */
  returnPath: { bounceDomain: string; secret: string }
  /** The signing key and return-path host of a message's sending domain, or why it is held. */
  signer: SenderSigner
  /** The Message-ID header for a message id; derived, so every attempt sends the same one. */
  messageIdFor: (messageId: string) => string
  /** Campaign mail is rendered here, at send time; without one, campaign rows are undeliverable. */
  campaigns?: CampaignRenderer
  /** API mail that asked for tracking; without one, such mail goes out untracked. */
  tracker?: MailTracker
  /**
   * MX mode: the receiving provider's budget is asked before the connection and the token, and its
   * reply is learnt from after the attempt (a throttling provider defers the message to its own pace).
   */
  receivers?: ReceiverGate
  /**
   * DELIVERY_MAX_AGE_HOURS in ms: mail its receiver still defers this long after it was accepted fails
   * (`expired`, with the last reply). Without it, deferrals go on.
   */
  maxAgeMs?: number
  logger?: DeliveryLogger
  /**
   * Each step of a send that went out, in ms: `claim` (the row claimed), `compose` (suppression and
   * sender checks, the mail built and signed), `connection` (an SMTP connection held), `token` (the
   * tenant's token taken), `smtp` (the server's accept), `mark` (the row marked sent). Where a login
   * code's time goes (`fairlane_send_step_seconds`).
   */
  onStep?: (step: SendStep, ms: number) => void
}

export type SendStep = 'claim' | 'compose' | 'connection' | 'token' | 'smtp' | 'mark'

/** Reports the time since the previous lap (or since it was made) under each step's name. */
function stepLaps(onStep: SendDeps['onStep']): (step: SendStep) => void {
  if (!onStep) return () => {}
  let last = performance.now()
  return (step) => {
    const now = performance.now()
    onStep(step, now - last)
    last = now
  }
}

/** `feedback`: a report about the message came back (an earlier attempt was accepted); settled by it. */
export type SkipReason = 'already-sent' | 'terminal' | 'suppressed' | 'held' | 'not-found' | 'feedback'

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

/** Where this call stands among the job's attempts. */
export interface SendAttempt {
  /** No retry follows a failure of this one: an unknown outcome then ends the message as failed. */
  final: boolean
}

/**
 * Delivers one message at most once per successful claim. The claim (a fresh lock token with an
 * expiry) is taken before sending and the row is marked sent only by the token's holder; a caught
 * transient failure releases the claim at once so the retry is not refused, while a crash leaves it
 * to expire and be reclaimed. Never "mark first, then send": a failure after the mark would lose
 * the mail. The one gap left is a crash between the server's accept and our mark, which resends
 * with the same Message-ID so the receiver can recognise it.
 *
 * Two failures are neither sent nor failed. The connection lost after the body was handed over
 * (`OutcomeUnknownSendError`): the server may have the mail, so the claim is kept until it expires
 * and no retry sends inside the lock window. The server accepted but the mark failed past its retries
 * (`SendNotRecordedError`, carrying the claim's token): the caller only records it from then on
 * (`recordAcceptedSend`), never sends it again.
 */
export async function sendMessage(
  job: SendJob,
  deps: SendDeps,
  attempt: SendAttempt = { final: false },
): Promise<SendOutcome> {
  const lap = stepLaps(deps.onStep)
  const message = await deps.store.claim({ ...job, lockMs: deps.lockMs })
  if (!message) return explainUnclaimed(job, deps.store)
  lap('claim')
  const claim: HeldClaim = { ...job, lockToken: message.lockToken }
  let response: string | undefined
  const prepared = await prepareClaimed(message, claim, deps, attempt)
  if (prepared.kind === 'done') return prepared.outcome
  lap('compose')
  const { mail, sender } = prepared

  try {
    // MX mode: the receiving provider's budget first. A provider with no room (or paused after
    // throttling) costs the tenant no token and holds no connection.
    const ask: ReceiverAsk = {
      tenantId: message.tenantId,
      lane: message.lane,
      toAddress: message.toAddress,
      signingDomain: sender.kind === 'sign' ? sender.domainName : undefined,
    }
    let route: ReceiverRoute | undefined
    if (deps.receivers) {
      const receiver = await deps.receivers.admit(ask)
      // Awaited here: an expired message throws, and the catch below settles it.
      if (!receiver.ok) return await deferToReceiver(claim, message, receiver, deps)
      route = receiver.route
    }
    // A free connection first, then the token, then SMTP: the token is taken only when the mail can
    // leave at once, so the tenant's plan holds at the receiving end. Whatever happens from here, the
    // connection goes back (releasing a slot that sent is a no-op).
    const slot = await deps.mailer.reserve(route, { ahead: job.ahead === true })
    lap('connection')
    const open = route ? deps.receivers?.stillOpen?.({ ...ask, route }) : undefined
    if (open && !open.ok) {
      slot.release()
      return await deferToReceiver(claim, message, open, deps)
    }
    try {
      const admission = await deps.gate.admit({ tenantId: message.tenantId, lane: message.lane })
      if (!admission.ok) {
        slot.release()
        return giveBack(claim, admission.delayMs, deps)
      }
      lap('token')
      try {
        response = (await slot.send(mail)).response
        lap('smtp')
      } catch (error) {
        if (!deps.receivers || !route) throw error
        const verdict = await deps.receivers.learn({ ...ask, route, outcome: { kind: 'failed', error } })
        if (verdict.kind === 'as-is') throw error
        return await deferToReceiver(claim, message, { ...verdict, reason: verdict.reply }, deps)
      }
    } finally {
      slot.release()
    }
    if (deps.receivers && route) await learnAccepted(deps.receivers, { ...ask, route }, deps)
  } catch (error) {
    return settleSendError(error, message, claim, deps, attempt)
  }
  const acceptedAt = deps.clock.now()
  let recorded: boolean
  try {
    recorded = await withRetries(() => deps.store.markSent({ ...claim, response }))
  } catch (error) {
    // The server has the mail: the caller must only ever record it from here on, with this token.
    throw new SendNotRecordedError(job.messageId, claim.lockToken, { cause: error, response })
  }
  lap('mark')
  if (!recorded) {
    // Our lock expired mid-send and another attempt claimed the row: it will send (same Message-ID)
    // and record the outcome. Counted as sent: the server did accept ours.
    deps.logger?.warn({ messageId: job.messageId, tenantId: job.tenantId }, 'send claim was taken over')
  }
  return { kind: 'sent', createdAt: message.createdAt, acceptedAt, recorded }
}

/** A claimed message made ready to send, or settled before any SMTP (`prepareClaimed`). */
export type PreparedSend =
  | { kind: 'ready'; mail: OutgoingMail; sender: Sender }
  | { kind: 'done'; outcome: SendOutcome }

/**
 * The steps between the claim and the connection, the same for one message and for each of a batch:
 * its own report came back (settled by it), its recipient suppressed or unsubscribed, its sender
 * domain held (before the token: held mail spends none of the tenant's rate), then its mail composed.
 * A failure of these steps is settled here as any send failure (`settleSendError`).
 */
export async function prepareClaimed(
  message: ClaimedMessage,
  claim: HeldClaim,
  deps: SendDeps,
  attempt: SendAttempt,
): Promise<PreparedSend> {
  // Its own bounce or complaint came back: the server had it from an attempt whose `sent` was never
  // recorded. Sending again would deliver a second copy to an address that refused the first.
  if (message.feedback !== null) {
    await deps.store.settleByFeedback({ ...claim, status: message.feedback })
    return { kind: 'done', outcome: { kind: 'skipped', reason: 'feedback' } }
  }
  // An unsubscribe stops campaign mail only; a bounce, a complaint or a manual entry stops every lane.
  const suppressed = suppressionStops(message.recipientSuppression, message.lane)
  if (suppressed || message.recipientUnsubscribed) {
    await deps.store.markSuppressed({
      ...claim,
      reason: message.recipientUnsubscribed
        ? 'the contact unsubscribed'
        : `recipient is on the tenant suppression list (scope: ${message.recipientSuppression})`,
    })
    return { kind: 'done', outcome: { kind: 'skipped', reason: 'suppressed' } }
  }
  try {
    let sender = await senderFor(message, deps)
    if (sender.kind === 'hold') {
      if (await hold(claim, sender, deps))
        return { kind: 'done', outcome: { kind: 'skipped', reason: 'held' } }
      // The domain verified after this worker cached its answer: ask afresh.
      if (message.sendingDomainId !== null) {
        deps.signer.forget?.({ tenantId: message.tenantId, domainId: message.sendingDomainId })
      }
      sender = await senderFor(message, deps)
      if (sender.kind === 'hold')
        return { kind: 'done', outcome: await giveBack(claim, STALE_HOLD_RETRY_MS, deps) }
    }
    return { kind: 'ready', mail: await composeMail(message, sender, deps), sender }
  } catch (error) {
    return { kind: 'done', outcome: await settleSendError(error, message, claim, deps, attempt) }
  }
}

/**
 * A send that failed after its claim: mail that came out of the signer unsigned is held (skipped);
 * anything else is recorded (`settleFailure`) and thrown for the caller's retry policy.
 */
export async function settleSendError(
  error: unknown,
  message: ClaimedMessage,
  claim: HeldClaim,
  deps: SendDeps,
  attempt: SendAttempt,
): Promise<SendOutcome> {
  if (error instanceof SigningFailedError) {
    await hold(claim, { kind: 'hold', code: 'signing_failed', reason: error.message }, deps)
    return { kind: 'skipped', reason: 'held' }
  }
  throw await settleFailure(error, message, claim, deps, attempt)
}

/**
 * The receiving provider had no room, or throttled this attempt: the message waits for the provider's
 * pace, its attempt not spent. Past the maximum age it fails instead, naming the provider and its reply.
 */
export async function deferToReceiver(
  claim: HeldClaim,
  message: ClaimedMessage,
  deferral: { delayMs: number; provider: string; reason: string },
  deps: SendDeps,
): Promise<SendOutcome> {
  const ageMs = deps.clock.now().getTime() - message.createdAt.getTime()
  if (deps.maxAgeMs !== undefined && ageMs + deferral.delayMs > deps.maxAgeMs) {
    const hours = Math.round((deps.maxAgeMs / 3_600_000) * 10) / 10
    // Settled as a permanent failure by the caller's catch: marked failed, then dead-lettered.
    throw new ExpiredMessageError(
      `deferred by ${deferral.provider} past the maximum age (${hours} h); last: ${deferral.reason}`,
    )
  }
  return giveBack(claim, deferral.delayMs, deps, { provider: deferral.provider, reply: deferral.reason })
}

/** The mail is out: a receiver state that cannot be written must not turn it into a failure. */
export async function learnAccepted(
  receivers: ReceiverGate,
  input: ReceiverAsk & { route: ReceiverRoute },
  deps: SendDeps,
): Promise<void> {
  try {
    await receivers.learn({ ...input, outcome: { kind: 'accepted' } })
  } catch (error) {
    deps.logger?.warn(
      { provider: input.route.provider, err: (error as Error).message },
      'could not record the receiver’s acceptance',
    )
  }
}

/**
 * A claim that sent nothing: deferred for `delayMs`. If giving it back fails, it expires (SEND_LOCK_MS)
 * and is reclaimed then.
 */
export async function giveBack(
  claim: HeldClaim,
  delayMs: number,
  deps: SendDeps,
  receiver?: { provider: string; reply: string },
): Promise<SendOutcome> {
  try {
    await deps.store.unclaim({ ...claim, untilMs: deps.clock.now().getTime() + delayMs, ...receiver })
  } catch (error) {
    deps.logger?.error(
      { messageId: claim.messageId, err: (error as Error).message },
      'could not give back an unused send claim',
    )
  }
  return { kind: 'deferred', delayMs }
}

/** No claim: the row is done, gone, or someone else holds a live claim (then retry later). */
async function explainUnclaimed(job: SendJob, store: DeliveryStore): Promise<SendOutcome> {
  const verdict = unclaimedVerdict(await store.readState(job))
  if (verdict.kind === 'skipped') return verdict
  throw new MessageLockedError(job.messageId, verdict.retryInMs)
}

/**
 * Why a message was not claimable, from its state: done, gone or held (skipped: nothing to do), or
 * `sending` under a live claim (or a row that changed hands between the claim and the read): wait
 * for that lock's expiry.
 */
export function unclaimedVerdict(
  state: DeliveryState | undefined,
): { kind: 'skipped'; reason: SkipReason } | { kind: 'locked'; retryInMs: number } {
  if (!state) return { kind: 'skipped', reason: 'not-found' }
  if (state.status === 'sent') return { kind: 'skipped', reason: 'already-sent' }
  // Bounced and complained too: a duplicate job of such a message must end, not wait for a lock.
  if ((TERMINAL_MESSAGE_STATUSES as readonly string[]).includes(state.status))
    return { kind: 'skipped', reason: 'terminal' }
  // Waits for its domain to verify again, which publishes it anew; this job has nothing to do.
  if (state.status === 'held') return { kind: 'skipped', reason: 'held' }
  return { kind: 'locked', retryInMs: Math.max(0, Math.ceil(state.lockRemainingMs ?? 0)) }
}

/**
 * Records a failed send and returns the error to throw. Permanent: suppress first (so a crash before
 * the row is marked still leaves the address suppressed for the reclaiming attempt), then mark
 * failed. Transient: release the claim at once; the retry must not wait out the lock. Outcome
 * unknown: keep the claim, so every retry inside the lock window is refused (`MessageLockedError`)
 * and only one after it may send again, with the same Message-ID; on the final attempt no retry
 * follows, so the message is marked failed under `outcome_unknown` instead of staying `sending`.
 */
async function settleFailure(
  error: unknown,
  message: ClaimedMessage,
  claim: HeldClaim,
  deps: SendDeps,
  attempt: SendAttempt,
): Promise<unknown> {
  const note: FailureNote = {
    error: error instanceof Error ? error.message : String(error),
    errorCode: deliveryErrorCodeOf(error),
  }
  if (isOutcomeUnknown(error)) {
    deps.logger?.warn(
      { messageId: message.id, tenantId: message.tenantId, final: attempt.final },
      attempt.final
        ? 'send outcome unknown on the final attempt; marked failed (outcome_unknown)'
        : 'send outcome unknown; the claim is kept until it expires',
    )
    if (attempt.final) await deps.store.markFailed({ ...claim, ...note })
    else await noteKeepingClaim(claim, note, deps)
    return error
  }
  if (isPermanentFailure(error)) {
    if (error.suppressRecipient) {
      await deps.store.suppress({
        tenantId: message.tenantId,
        email: message.toAddress,
        reason: 'hard-bounce',
        messageId: message.id,
      })
    }
    await deps.store.markFailed({ ...claim, ...note })
    return error
  }
  try {
    await deps.store.release({ ...claim, ...note, retryFollows: !attempt.final })
  } catch (releaseError) {
    // The lock then simply expires; the retry waits for it instead of failing twice.
    deps.logger?.error(
      { messageId: message.id, err: (releaseError as Error).message },
      'could not release the send claim',
    )
  }
  return error
}

/** Best effort: if noting fails the claim is kept all the same, which is what protects the mail. */
async function noteKeepingClaim(claim: HeldClaim, note: FailureNote, deps: SendDeps): Promise<void> {
  try {
    await deps.store.noteOutcomeUnknown({ ...claim, ...note })
  } catch (noteError) {
    deps.logger?.error(
      { messageId: claim.messageId, err: noteError },
      'could not note an unknown send outcome; the claim is kept all the same',
    )
  }
}

/** Platform mail, or a sending domain's: how it is signed and where its bounces go. */
export type Sender = { kind: 'platform' } | Extract<SenderSigning, { kind: 'sign' }>
type Hold = Extract<SenderSigning, { kind: 'hold' }>

async function senderFor(message: ClaimedMessage, deps: SendDeps): Promise<Sender | Hold> {
  if (message.sendingDomainId !== null) {
    return deps.signer.signingFor({ tenantId: message.tenantId, domainId: message.sendingDomainId })
  }
  // A From on the tenant's domain whose domain row is gone (deleted, the reference set null): sent
  // as it stands it would leave unsigned under the tenant's name.
  if (message.fromAddress !== null) {
    return {
      kind: 'hold',
      code: 'sender_domain_unverified',
      reason: 'the sending domain of this message no longer exists',
    }
  }
  return { kind: 'platform' }
}

/**
 * The message waits unsent for its domain; the job ends here (the domain's release publishes it
 * again). False when it was not held: its domain is verified after all (a stale cached answer), or
 * the claim is no longer ours.
 */
async function hold(claim: HeldClaim, held: Hold, deps: SendDeps): Promise<boolean> {
  const result = await deps.store.markHeld({ ...claim, error: held.reason, errorCode: held.code })
  if (result === 'not-holder') return true
  if (result === 'held') {
    deps.logger?.warn(
      { messageId: claim.messageId, tenantId: claim.tenantId, code: held.code, reason: held.reason },
      'message held: its sending domain cannot sign',
    )
  }
  return result === 'held'
}

async function composeMail(message: ClaimedMessage, sender: Sender, deps: SendDeps): Promise<OutgoingMail> {
  const signed = sender.kind === 'sign'
  const addressed = {
    // nodemailer quotes or encodes the name: a tenant called `Acme, "Inc"` stays one display name.
    from: message.fromAddress ?? { name: message.tenantName, address: deps.mailFrom },
    ...(message.replyTo !== null ? { replyTo: message.replyTo } : {}),
    to: message.toAddress,
    envelope: {
      from: buildReturnPath({
        messageId: message.id,
        host: signed ? sender.returnPathHost : deps.returnPath.bounceDomain,
        secret: deps.returnPath.secret,
      }),
      to: message.toAddress,
    },
    ...(signed
      ? {
          dkim: {
            domainName: sender.domainName,
            keySelector: sender.selector,
            privateKey: sender.privateKey,
          },
        }
      : {}),
    messageId: deps.messageIdFor(message.id),
  }
  if (message.campaignId !== null) {
    if (!deps.campaigns) throw new UndeliverableMessageError('this worker cannot render campaign mail')
    if (!message.contact) throw new UndeliverableMessageError('the campaign contact no longer exists')
    const rendered = await deps.campaigns.render({
      tenantId: message.tenantId,
      campaignId: message.campaignId,
      messageId: message.id,
      toAddress: message.toAddress,
      contact: message.contact,
      trackingDisabled: message.trackingDisabled,
    })
    return { ...addressed, ...rendered }
  }
  if (message.content === 'raw') {
    // As submitted: no tracking rewrite (the HTML is inside the tenant's own MIME, left untouched).
    const kept = await keptContent(message, 'raw', deps)
    return { ...addressed, subject: message.subject ?? '', raw: kept.raw, headers: { ...API_MAIL_HEADERS } }
  }
  if (message.subject === null || (message.html === null && message.text === null)) {
    throw new UndeliverableMessageError('message has no rendered subject and body')
  }
  const html = message.html === null ? null : await trackedHtml(message, message.html, deps)
  const attachments =
    message.content === 'attachments' ? (await keptContent(message, 'attachments', deps)).attachments : null
  return {
    ...addressed,
    subject: message.subject,
    ...(html !== null ? { html } : {}),
    ...(message.text !== null ? { text: message.text } : {}),
    headers: { ...API_MAIL_HEADERS },
    ...(attachments !== null ? { attachments } : {}),
  }
}

/** RFC 3834: codes and resets are machine-sent; auto-responders must not answer them. SMTP mail too. */
const API_MAIL_HEADERS: Readonly<Record<string, string>> = { 'Auto-Submitted': 'auto-generated' }

/** The content the claim said the message keeps; gone (the retention took it), it cannot be sent. */
async function keptContent<K extends KeptContent['kind']>(
  message: ClaimedMessage,
  kind: K,
  deps: SendDeps,
): Promise<Extract<KeptContent, { kind: K }>> {
  const kept = await deps.store.readContent({ messageId: message.id, tenantId: message.tenantId, kind })
  if (kept?.kind !== kind) {
    throw new UndeliverableMessageError(
      kind === 'raw' ? 'the submitted message is no longer kept' : 'the attachments are no longer kept',
    )
  }
  return kept as Extract<KeptContent, { kind: K }>
}

/** Most API mail tracks nothing: then no parsing, no query, the stored HTML as it is. */
async function trackedHtml(message: ClaimedMessage, html: string, deps: SendDeps): Promise<string> {
  const { tracking } = message
  if (!deps.tracker || message.trackingDisabled || (!tracking.opens && !tracking.clicks)) return html
  return deps.tracker.track({ tenantId: message.tenantId, messageId: message.id, html, tracking })
}
