import type { KeyObject } from 'node:crypto'
import type { Lane } from '../domain/lanes'
import type { MessageStatus, SuppressionReason } from '../domain/statuses'
import type { SuppressionScope } from '../domain/suppression-scopes'
import type { DeliveryErrorCode } from './delivery-error-code'

/** What a lane job carries (ids only); the message row is the truth. */
export interface SendJob {
  messageId: string
  tenantId: string
  /**
   * A new flow's first turn (the pacer's `fresh` job): its SMTP connection is taken ahead of the
   * sends already waiting for one (`ReserveOptions.ahead`).
   */
  ahead?: boolean
}

/** A message row as the claim returns it: everything needed to build the email, and the claim's token. */
export interface ClaimedMessage {
  id: string
  tenantId: string
  lane: Lane
  campaignId: string | null
  toAddress: string
  subject: string | null
  html: string | null
  text: string | null
  /** Including this claim. */
  attempts: number
  generation: number
  createdAt: Date
  /** Fresh for every claim: only its holder may mark the row sent, failed or released. */
  lockToken: string
  /**
   * The scope of the tenant's suppression of the recipient, null when there is none (read in the
   * claim's own statement: one round trip less per send); whether it stops this message depends on
   * the lane (`suppressionStops`). A suppression that this very message's own SMTP refusal (5.1.1)
   * created does not count, so an admin's deliberate replay of it is not silently skipped; every other
   * message is. One that a report about this message created stops it through `feedback` instead.
   */
  recipientSuppression: SuppressionScope | null
  /**
   * What a report about this very message said, when one came back and suppressed the address: a hard
   * bounce (`bounced`) or a complaint (`complained`, which wins). Such a report means the server
   * accepted an earlier attempt whose `sent` was never recorded (the reply was lost, or the worker died
   * before its commit), so the message is never sent again: the claim settles it as the report says.
   * Null for nearly every claim (read only when the address's suppression names this message).
   */
  feedback: FeedbackVerdict | null
  /** Campaign mail: the contact left the tenant's list after dispatch; the message is not sent. */
  recipientUnsubscribed: boolean
  /** Campaign mail: the recipient as the campaign is personalised for it, read at claim time. */
  contact: CampaignRecipient | null
  /**
   * The From header as resolved when the message was accepted or dispatched (`"News" <news@example.com>`
   * or a bare address); null: the platform sender, MAIL_FROM under the tenant's name.
   */
  fromAddress: string | null
  replyTo: string | null
  /** The tenant's domain the mail is sent from (signed with its key, its return path); null: platform mail. */
  sendingDomainId: string | null
  /** The display name of platform-sender mail. */
  tenantName: string
  /**
   * What to track, as resolved in the claim: API mail's own switches (off unless asked for), both
   * false when the tenant turned tracking off; campaign mail's come from its campaign (the renderer),
   * under the same tenant switch (`trackingDisabled`).
   */
  tracking: { opens: boolean; clicks: boolean }
  /** The tenant's "no tracking" privacy switch: overrides every campaign's and message's switches. */
  trackingDisabled: boolean
  /**
   * Content kept beside the row, read after the claim (`DeliveryStore.readContent`): `raw`, a message
   * submitted over SMTP and sent as submitted (`message_contents`); `attachments`, API mail's files
   * (`message_attachments`). Absent or null: the row's subject and body are the whole message.
   */
  content?: MessageContentKind | null
}

export type MessageContentKind = 'raw' | 'attachments'

/** A file of API mail as the mailer attaches it; with a `contentId`, inline (`cid:` in the HTML). */
export interface OutgoingAttachment {
  filename: string
  contentType: string
  contentId: string | null
  content: Uint8Array
}

/** What `readContent` finds: the submitted bytes, or the attachments in their order. */
export type KeptContent =
  | { kind: 'raw'; raw: Uint8Array }
  | { kind: 'attachments'; attachments: OutgoingAttachment[] }

/** The status a report about a message gives it: `complained` over a hard bounce. */
export type FeedbackVerdict = 'bounced' | 'complained'

export interface CampaignRecipient {
  id: string
  name: string | null
  attributes: Record<string, unknown>
}

/** A campaign message's content for one recipient, headers (List-Unsubscribe) included. */
export interface RenderedMail {
  subject: string
  html: string
  text: string
  headers: Record<string, string>
}

/**
 * Renders campaign mail at send time (it is stored without content: one campaign, many recipients).
 * Throws `UndeliverableMessageError` when it cannot (the campaign or contact is gone).
 */
export interface CampaignRenderer {
  /**
   * Reads the campaigns a batch is about to render, those not at hand, in one go (a bulk job may
   * carry the first turns of dozens of tenants, each a campaign new to this worker: one read
   * instead of one before each render). A campaign it could not read is read again by its render.
   */
  prefetch?(campaigns: ReadonlyArray<{ tenantId: string; campaignId: string }>): Promise<void>
  render(input: {
    tenantId: string
    campaignId: string
    messageId: string
    toAddress: string
    contact: CampaignRecipient
    /** The tenant's privacy switch: when on, nothing is tracked whatever the campaign says. */
    trackingDisabled: boolean
  }): Promise<RenderedMail>
}

/**
 * Open and click tracking of API mail (campaign mail is tracked by its renderer): the HTML with its
 * links rewritten to signed `/t/c/` URLs and the `/t/o/` pixel added, as `tracking` asks.
 */
export interface MailTracker {
  track(input: {
    tenantId: string
    messageId: string
    html: string
    tracking: { opens: boolean; clicks: boolean }
  }): Promise<string>
}

export interface HeldClaim extends SendJob {
  lockToken: string
}

export interface DeliveryState {
  status: MessageStatus
  /** Milliseconds until `locked_until` by the database's clock (negative once expired); null if unlocked. */
  lockRemainingMs: number | null
}

/**
 * The message table as the send use case needs it. Every write after the claim is conditional on the
 * claim's token, so an attempt whose lock expired and was taken over changes nothing.
 */
export interface DeliveryStore {
  /**
   * Atomically: status → sending, a fresh lock token, locked_until = now + lockMs, attempts + 1; only
   * for a queued/pending row or a sending row whose lock expired. Undefined when not claimable.
   */
  claim(input: SendJob & { lockMs: number }): Promise<ClaimedMessage | undefined>
  readState(input: SendJob): Promise<DeliveryState | undefined>
  /**
   * The content a claimed message keeps beside its row (`ClaimedMessage.content`); undefined when it
   * is gone (the body retention removed it). Read per attempt, after the claim: never in the claim's
   * own statement, which every message runs and which would carry megabytes for a few.
   */
  readContent(input: SendJob & { kind: MessageContentKind }): Promise<KeptContent | undefined>
  /**
   * Status → sent, with its `sent` event carrying the server's reply; false when the token no longer
   * matches (the claim was taken over).
   */
  markSent(claim: SentClaim): Promise<boolean>
  /** Status → queued, lock cleared at once so the retry is not refused; `retrying` when one follows. */
  release(claim: ReleasedClaim): Promise<boolean>
  /**
   * The outcome is unknown (the server may have the mail): the error is noted and the claim is KEPT,
   * status `sending`, lock untouched, so no attempt can send the message again before it expires.
   */
  noteOutcomeUnknown(claim: HeldClaim & FailureNote): Promise<boolean>
  /**
   * The claim given back unused (no token to send with): status → queued, lock cleared, and the
   * claim's attempt taken back, so `attempts` keeps counting real delivery tries only; its `deferred`
   * event says until when.
   */
  unclaim(claim: UnclaimedClaim): Promise<boolean>
  markFailed(claim: HeldClaim & FailureNote): Promise<boolean>
  markSuppressed(claim: HeldClaim & { reason: string }): Promise<boolean>
  /**
   * Settled by its own report (`ClaimedMessage.feedback`), never sent again: status → `bounced` or
   * `complained`, lock cleared, `sent_at` set if unset (the server had accepted an earlier attempt).
   * No event: the report's `bounced` or `complained` is already in the timeline.
   */
  settleByFeedback(claim: HeldClaim & { status: FeedbackVerdict }): Promise<boolean>
  /**
   * Status → held, lock cleared, the reason noted: the message waits unsent (its sender domain cannot
   * sign) until the domain verifies again and releases it. Its job ends; nothing retries it.
   */
  markHeld(claim: HeldClaim & FailureNote): Promise<HoldResult>
  suppress(input: {
    tenantId: string
    email: string
    reason: SuppressionReason
    messageId: string
  }): Promise<void>
}

/**
 * The store as a batch needs it (one tenant's messages, or several tenants' short turns): one claim
 * and one read for all of them. A message counts only under one of `tenantIds`.
 */
export interface BatchDeliveryStore extends DeliveryStore {
  /**
   * Claims every claimable one of the messages in one statement (as `claim`, each row its own fresh
   * token); the rows not returned were not claimable (done, held, gone, or under a live claim).
   */
  claimBatch(input: {
    tenantIds: readonly string[]
    messageIds: readonly string[]
    lockMs: number
  }): Promise<ClaimedMessage[]>
  /** Each message's state in one read, by id; a message that does not exist is absent. */
  readStates(input: {
    tenantIds: readonly string[]
    messageIds: readonly string[]
  }): Promise<Map<string, DeliveryState>>
}

/**
 * Every write of the store after the claim also writes the message's event (`message_events`) in the
 * same statement: `sent`, `retrying`, `deferred`, `failed`, `suppressed`. These carry what the event says.
 */
export interface SentClaim extends HeldClaim {
  /** The server's reply to the message (`250 2.0.0 OK …`), addresses taken out; absent if unknown. */
  response?: string | null | undefined
}

export interface ReleasedClaim extends HeldClaim, FailureNote {
  /** Another attempt follows (not the job's final one): the message's event is `retrying`. */
  retryFollows: boolean
}

export interface UnclaimedClaim extends HeldClaim {
  /** When the message is tried again (ms since the epoch): its `deferred` event's `untilMs`. */
  untilMs: number
  /**
   * MX mode: the receiving provider that deferred it and its reply (its throttling words, or why its
   * budget had no room: paused after a throttle, or at its rate).
   */
  provider?: string | undefined
  reply?: string | undefined
}

/** Why an attempt did not deliver: the raw error for admins, the classified code for tenants. */
export interface FailureNote {
  error: string
  errorCode: DeliveryErrorCode
}

/** A mailbox as nodemailer takes it: the name is quoted or encoded by the mailer, never concatenated. */
export interface MailAddress {
  name: string
  address: string
}

/** A per-message DKIM signature: the domain's key, parsed once (`SenderSigner`). */
export interface DkimSignature {
  domainName: string
  keySelector: string
  privateKey: KeyObject
}

export interface OutgoingMail {
  /** The From header: the row's resolved value, or the platform's address under the tenant's name. */
  from: string | MailAddress
  replyTo?: string
  to: string
  /** SMTP's MAIL FROM (the message's VERP return path) and RCPT TO, apart from the headers. */
  envelope: { from: string; to: string }
  /** Set: the mailer must sign, and must fail (`SigningFailedError`) rather than send unsigned. */
  dkim?: DkimSignature
  subject: string
  html?: string
  text?: string
  /** The full Message-ID header value, angle brackets included; the same on every attempt. */
  messageId: string
  headers: Record<string, string>
  /**
   * A message submitted over SMTP, as submitted: sent as these bytes with its Message-ID replaced by
   * `messageId`, its Bcc, Return-Path and earlier DKIM signatures removed and `headers` added; `from`,
   * `subject`, `html` and `text` are then not used (the submitted header block has its own).
   */
  raw?: Uint8Array
  /** API mail's files, in order. */
  attachments?: OutgoingAttachment[]
}

/**
 * Hands mail to SMTP, one held connection at a time. `reserve` waits until one of the mailer's
 * connections is free and holds it for the caller, so whatever is asked between the reserve and the
 * slot's `send` (the tenant's token) is asked at the moment the mail leaves, give or take one SMTP
 * exchange. It rejects with a `SendFailure` (see send-failure.ts) when no connection came free in time.
 */
export interface Mailer {
  /** `route`: in MX mode, the receiver the mail goes to (the egress address to connect from). */
  reserve(route?: ReceiverRoute, options?: ReserveOptions): Promise<MailSlot>
  /**
   * One connection held for a sequence of sends (a batch): it stays held after each send until
   * `release`. Without it a batch reserves a slot per message.
   */
  hold?(route?: ReceiverRoute, options?: ReserveOptions): Promise<HeldConnection>
}

export interface ReserveOptions {
  /**
   * Served before the waiters that are not (first in, first out within each): a new tenant's first
   * turn takes the next free connection rather than waiting behind every batch already waiting.
   */
  ahead?: boolean
}

/**
 * A connection held for several sends in sequence (`Mailer.hold`). Each send has the mailer's whole
 * send deadline of its own; `release` gives the connection back (twice is harmless).
 */
export interface HeldConnection {
  /** As `MailSlot.send`, but the connection stays held for the next one. */
  send(mail: OutgoingMail): Promise<HandOff>
  release(): void
}

/**
 * MX mode's receiving side. Mail goes to the recipient's own mail servers, grouped into providers
 * that share one budget per egress address (Gmail, Microsoft, Yahoo throttle per sending IP): before
 * a connection and the tenant's token are taken, the provider's budget is asked; after the attempt,
 * the provider's reply is learnt from. Relay mode has none.
 */
export interface ReceiverGate {
  admit(input: ReceiverAsk): Promise<ReceiverAdmission>
  /**
   * What the receiver made of the attempt. A throttling reply answers `defer`: the message waits for
   * the provider's pace, its attempt not spent (it was the provider's state, not the message, that failed).
   */
  learn(input: ReceiverAsk & { route: ReceiverRoute; outcome: ReceiverOutcome }): Promise<ReceiverVerdict>
  /**
   * Asked again once the mail has its connection slot, from what this worker already knows (no I/O):
   * a provider that paused while the message waited for the slot (a throttle another send just
   * learnt) is not sent to after all.
   */
  stillOpen?(input: ReceiverAsk & { route: ReceiverRoute }): ReceiverAdmission
  /**
   * A batch's ask: up to `count` messages of one tenant to the provider of `ask.toAddress`, in one
   * pass over the budget's buckets (the provider's budget may grant fewer: `delayMs` is then when the
   * rest may ask again). Without it a batch asks `admit` once per message until it refuses.
   */
  admitUpTo?(ask: ReceiverAsk, count: number): Promise<ReceiverBatchAdmission>
}

export type ReceiverBatchAdmission =
  | { ok: true; route: ReceiverRoute; granted: number; delayMs: number; reason?: string | undefined }
  | Extract<ReceiverAdmission, { ok: false }>

export interface ReceiverAsk {
  tenantId: string
  lane: Lane
  toAddress: string
  /** The DKIM d= the message is signed with, if any: a provider may throttle that domain alone. */
  signingDomain?: string | undefined
}

/** Where the mail goes: the provider (budget) and the local address it is sent from. */
export interface ReceiverRoute {
  provider: string
  /** The egress (source) address; absent: the system picks. */
  egressAddress?: string | undefined
  /** The provider's own connection limits (per egress address and MX host); absent: the transport's. */
  limits?: ConnectionLimits | undefined
}

/** How a receiving provider wants to be connected to: the rules file's limits for it. */
export interface ConnectionLimits {
  /** Connections open at once from one egress address to one of its MX hosts. */
  connections: number
  /** Messages one connection carries before it is closed and replaced. */
  messagesPerConnection: number
}

export type ReceiverAdmission =
  | { ok: true; route: ReceiverRoute }
  /** The provider's budget has no room now (or it paused after throttling): try again after `delayMs`. */
  | { ok: false; delayMs: number; provider: string; reason: string; egressAddress?: string | undefined }

export type ReceiverOutcome = { kind: 'accepted' } | { kind: 'failed'; error: unknown }

export type ReceiverVerdict =
  /** Nothing to change: the failure (if any) is settled as usual (retry, fail, outcome unknown). */
  { kind: 'as-is' } | { kind: 'defer'; delayMs: number; provider: string; reply: string }

/**
 * One held SMTP connection. Exactly one of `send` or `release` gives it back: `send` always does,
 * whatever happens; `release` is for a slot that sends nothing. Giving it back twice is harmless.
 */
export interface MailSlot {
  /**
   * Resolves with the server's reply (addresses taken out; absent if unknown) once the server accepted
   * the message; rejects with a `SendFailure` (see send-failure.ts) or `SigningFailedError`.
   */
  send(mail: OutgoingMail): Promise<HandOff>
  release(): void
}

/** The server accepted the message: its reply, for the message's `sent` event. */
export interface HandOff {
  response?: string | undefined
}

/**
 * The tenant's token bucket in front of the SMTP hand-off: a token, or how long until one is due.
 * Asked once a connection is held, right before the mail is written to it.
 */
export interface SendGate {
  admit(input: { tenantId: string; lane: Lane }): Promise<Admission>
  /**
   * Up to `count` tokens at once (a batch): the bucket may grant fewer; `delayMs` is then how long
   * until the rest may be asked for again. Without it a batch asks `admit` once per message.
   */
  admitUpTo?(input: { tenantId: string; lane: Lane; count: number }): Promise<BatchAdmission>
}

/** How many of a batch's tokens the bucket granted; with fewer than asked, when to ask for the rest. */
export interface BatchAdmission {
  granted: number
  delayMs: number
}

/**
 * How mail of one of a tenant's sending domains leaves: signed with its active DKIM key, its return
 * path on the domain's bounce host; or held, with the code and reason the tenant sees.
 */
export type SenderSigning =
  | {
      kind: 'sign'
      domainName: string
      selector: string
      privateKey: KeyObject
      /** `<return-path label>.<domain>`: the host of the message's VERP address. */
      returnPathHost: string
    }
  | { kind: 'hold'; code: 'sender_domain_unverified' | 'signing_failed'; reason: string }

/** Answers for a sending domain, cached briefly by implementations (a key is decrypted once, not per mail). */
export interface SenderSigner {
  signingFor(input: { tenantId: string; domainId: string }): Promise<SenderSigning>
  /** Drops a cached answer: the next `signingFor` reads the domain afresh. */
  forget?(input: { tenantId: string; domainId: string }): void
}

/**
 * `held`; `domain-verified`: not held, because the message's domain is verified in the database (the
 * hold answer was stale: held now, the domain's release has already passed and it would wait for
 * good); `not-holder`: the claim is no longer ours.
 */
export type HoldResult = 'held' | 'domain-verified' | 'not-holder'

/** The tenant's token bucket's answer: a token, or how long until this message's token is due. */
export type Admission = { ok: true } | { ok: false; delayMs: number }

export interface Clock {
  now(): Date
}

export interface DeliveryLogger {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
  error(fields: Record<string, unknown>, message: string): void
}
