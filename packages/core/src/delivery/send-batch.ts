import { groupBy } from '../collections/group-by'
import type {
  BatchAdmission,
  BatchDeliveryStore,
  ClaimedMessage,
  HeldClaim,
  HeldConnection,
  Mailer,
  OutgoingMail,
  ReceiverRoute,
  ReserveOptions,
  SendGate,
  SentClaim,
} from './ports'
import { admitBatchToReceiver, receiverAskOf } from './send-batch-receiver'
import { isOutcomeUnknown, isPermanentFailure } from './send-failure'
import {
  deferToReceiver,
  giveBack,
  learnAccepted,
  prepareClaimed,
  type SendDeps,
  type SendOutcome,
  type SkipReason,
  settleSendError,
  unclaimedVerdict,
} from './send-message'
import { SendNotRecordedError } from './send-not-recorded-error'
import { withRetries } from './with-retries'

/** A bulk job's batch: messages of one tenant, or the short turns of several, sent in this order. */
export interface SendBatchJob {
  /** The tenant whose messages these are; of a batch of several tenants (`tenantIds`), the first. */
  tenantId: string
  messageIds: readonly string[]
  /**
   * A batch of several tenants' short turns (the pacer packs newcomers' first turns, and small
   * turns, into one job): every tenant it carries messages of. Each message is claimed only under
   * its own tenant, and each tenant's messages take that tenant's tokens.
   */
  tenantIds?: readonly string[]
  /** A new flow's first turn: its connection is taken ahead of the waiting sends (`SendJob.ahead`). */
  ahead?: boolean
}

export interface SendBatchDeps extends SendDeps {
  store: BatchDeliveryStore
}

/** What became of one message of a batch. */
export type BatchItem =
  | { messageId: string; kind: 'sent'; createdAt: Date; acceptedAt: Date; recorded: boolean }
  | { messageId: string; kind: 'skipped'; reason: SkipReason }
  /** Permanent: marked failed (its recipient suppressed when the reply asked): its own dead letter. */
  | { messageId: string; kind: 'failed'; error: unknown; generation: number; attempts: number }
  /** Transient: its claim released; it goes on as its own job after the lane's backoff. */
  | { messageId: string; kind: 'retry'; error: unknown; generation: number }
  /** The server may have it: its claim kept; its own job waits for the lock's expiry. */
  | { messageId: string; kind: 'outcome-unknown'; error: unknown; generation: number; retryInMs: number }
  /** The server accepted it and the mark failed past its retries: its own job only records it. */
  | { messageId: string; kind: 'not-recorded'; error: SendNotRecordedError; generation: number }

export interface BatchOutcome {
  items: BatchItem[]
  /**
   * Messages the job comes back for after `delayMs`, nothing spent: no token for them yet, under
   * another attempt's live claim (a dead worker's: they wait for its expiry), or out of the batch's time.
   */
  rest: { messageIds: string[]; delayMs: number } | null
}

/**
 * Marks are flushed during a batch once it has been sending this long: the mails the server has and
 * PostgreSQL does not (the duplicate window of a worker killed mid-batch) are bounded in time, not
 * only by the batch's size. At 1 s, `pnpm bench:chaos` counted 223 duplicates across its SIGKILL
 * (306 claims caught in flight, 8 connections of batches of 50); a mark every quarter second costs a
 * statement per ~15 mails on a connection sending 60 a second.
 */
export const MARK_FLUSH_MS = 250

/**
 * The share of the claim (SEND_LOCK_MS) a batch may spend before it starts no further send: each
 * send may take up to the send deadline (≤ 0.8 × SEND_LOCK_MS, `sendDeadlineMs`), and a send must
 * end before its claim expires, or a second attempt could take the row and deliver it again.
 */
export const BATCH_LOCK_SHARE = 0.2

/**
 * Delivers one tenant's messages as one unit of work, each still at most once per successful claim
 * (`sendMessage`'s rules, per message): every claimable message claimed in one statement (the others
 * explained in one read: done, terminal or held are skipped; under a live claim, they wait for its
 * expiry), each one's own checks and mail (`prepareClaimed`), then ONE held SMTP connection, ONE
 * token take for all of them (the bucket may grant fewer: those are sent, the rest given back unused
 * to come back later; a batch of several tenants takes each tenant's own, at once), the
 * mails sent in order, and every one sent marked in one statement at the end
 * (earlier once the batch has been sending for `MARK_FLUSH_MS`).
 *
 * A message's failure is its own, as for one message: permanent → marked failed, dead-lettered by the
 * caller; transient → claim released, on as its own job (its own attempts and backoff); unknown →
 * claim kept, its own job after the lock expires; accepted but not recorded → its own job only
 * records it. A worker killed mid-batch leaves the sent-and-marked rows done and the others `sending`
 * under its lock: the job comes back (stalled), finds the marked ones sent, waits out the lock and
 * sends only the unmarked ones again, with their same Message-IDs.
 *
 * MX mode (`deps.receivers`): the batch is always one tenant's mail for one receiving provider. The
 * provider's budget is asked once, before the connection (`admitBatchToReceiver`): what it does not
 * grant waits in the job, deferred to the provider's pace, no attempt spent. The held connection
 * takes the provider's route; a provider that pauses mid-batch (`stillOpen`) or answers a send with a
 * throttle (`learn` → `defer`) stops the batch: that message and the rest wait for the provider's
 * pace, and nothing more is sent to it from this batch.
 */
export async function sendBatch(job: SendBatchJob, deps: SendBatchDeps): Promise<BatchOutcome> {
  // A batch's messages go on as their own jobs after a failure, with their own attempts: no batch
  // attempt is the last one of any message.
  const attempt = { final: false }
  const startedAtMs = deps.clock.now().getTime()
  const items: BatchItem[] = []
  const waiting = new Map<string, number>()
  const tenantIds = job.tenantIds ?? [job.tenantId]
  if (deps.receivers && tenantIds.length > 1) {
    // A provider's budget is asked per tenant and provider: such a job (left from relay mode) goes on
    // as its messages' own jobs once it fails for good.
    throw new Error('a batch of several tenants cannot be sent to receivers’ MX hosts')
  }
  const claimed = await deps.store.claimBatch({ tenantIds, messageIds: job.messageIds, lockMs: deps.lockMs })
  const byId = new Map(claimed.map((message) => [message.id, message]))
  const unclaimed = job.messageIds.filter((id) => !byId.has(id))
  if (unclaimed.length > 0) {
    const states = await deps.store.readStates({ tenantIds, messageIds: unclaimed })
    for (const messageId of unclaimed) {
      const verdict = unclaimedVerdict(states.get(messageId))
      if (verdict.kind === 'skipped') items.push({ messageId, kind: 'skipped', reason: verdict.reason })
      else waiting.set(messageId, verdict.retryInMs)
    }
  }

  await prefetchCampaigns(claimed, deps)
  const ready: Ready[] = []
  for (const messageId of job.messageIds) {
    const message = byId.get(messageId)
    if (!message) continue
    const claim: HeldClaim = { messageId, tenantId: message.tenantId, lockToken: message.lockToken }
    let prepared: Awaited<ReturnType<typeof prepareClaimed>>
    try {
      prepared = await prepareClaimed(message, claim, deps, attempt)
    } catch (error) {
      items.push(failedItem(error, message, deps))
      continue
    }
    if (prepared.kind === 'ready') ready.push({ message, claim, mail: prepared.mail })
    else note(prepared.outcome, message, items, waiting)
  }

  if (ready.length > 0)
    await sendReady(ready, deps, { items, waiting, startedAtMs, attempt, ahead: job.ahead === true })
  return { items, rest: restOf(waiting) }
}

/** The batch's campaigns read at once, before its messages are rendered one by one. */
async function prefetchCampaigns(claimed: readonly ClaimedMessage[], deps: SendBatchDeps): Promise<void> {
  if (!deps.campaigns?.prefetch) return
  const campaigns = new Map<string, string>()
  for (const message of claimed) {
    if (message.campaignId !== null) campaigns.set(message.campaignId, message.tenantId)
  }
  if (campaigns.size === 0) return
  await deps.campaigns.prefetch([...campaigns].map(([campaignId, tenantId]) => ({ tenantId, campaignId })))
}

interface Ready {
  message: ClaimedMessage
  claim: HeldClaim
  mail: OutgoingMail
}

interface Tally {
  items: BatchItem[]
  waiting: Map<string, number>
  startedAtMs: number
  attempt: { final: boolean }
  /** The job's `ahead`: its connection is taken before the waiting sends'. */
  ahead: boolean
}

/** The held connection, the one token take, the sends in order and their marks. */
async function sendReady(all: readonly Ready[], deps: SendBatchDeps, tally: Tally): Promise<void> {
  let ready = all
  let route: ReceiverRoute | undefined
  if (deps.receivers) {
    const admission = await admitBatchToReceiver(deps.receivers, ready)
    if (!admission.ok) {
      await deferAllToReceiver(ready, admission, deps, tally)
      return
    }
    route = admission.route
    const refused = ready.slice(admission.granted)
    const deferral = {
      delayMs: admission.delayMs,
      provider: route.provider,
      reason: admission.reason ?? `${route.provider} granted ${admission.granted} of ${ready.length}`,
    }
    await deferAllToReceiver(refused, deferral, deps, tally)
    ready = ready.slice(0, admission.granted)
  }
  let connection: HeldConnection
  try {
    connection = await holdConnection(deps.mailer, route, { ahead: tally.ahead })
  } catch {
    // No connection came free within the send deadline: the lane is busy, not the mail wrong. The
    // claims go back unused (no attempt spent) and the job tries again shortly.
    await giveBackAll(ready, NO_CONNECTION_RETRY_MS, deps, tally.waiting)
    return
  }
  const sent: Array<{ message: ClaimedMessage; claim: SentClaim; acceptedAt: Date }> = []
  const flush = async () => {
    if (sent.length > 0) tally.items.push(...(await markAll(sent.splice(0), deps)))
  }
  try {
    const first = ready[0] as Ready
    const { granted, refused } = await admitEachTenant(deps.gate, ready)
    await Promise.all(refused.map((rest) => giveBackAll(rest.entries, rest.delayMs, deps, tally.waiting)))
    let flushedAtMs = deps.clock.now().getTime()
    for (const [index, entry] of granted.entries()) {
      const nowMs = deps.clock.now().getTime()
      if (nowMs - tally.startedAtMs > deps.lockMs * BATCH_LOCK_SHARE) {
        // Too close to the claims' expiry for another send: the rest come back with fresh claims.
        deps.logger?.warn(
          { tenantId: first.message.tenantId, unsent: granted.length - index },
          'batch out of time; the rest of it goes back to its job',
        )
        await giveBackAll(granted.slice(index), 0, deps, tally.waiting)
        break
      }
      const closed = route && deps.receivers?.stillOpen?.({ ...receiverAskOf(entry), route })
      if (closed && !closed.ok) {
        // Paused while this batch sent (a throttle another send of this worker learnt): not one more.
        await deferAllToReceiver(granted.slice(index), closed, deps, tally)
        break
      }
      let response: string | undefined
      try {
        response = (await connection.send(entry.mail)).response
      } catch (error) {
        const stop = route ? await throttled(error, entry, route, deps) : undefined
        if (stop) {
          // The provider said slow down: this message and the rest wait for its pace, never hammered.
          await deferAllToReceiver(granted.slice(index), stop, deps, tally)
          break
        }
        tally.items.push(await settledItem(error, entry, deps, tally.attempt))
        continue
      }
      if (route && deps.receivers) {
        await learnAccepted(deps.receivers, { ...receiverAskOf(entry), route }, deps)
      }
      sent.push({ message: entry.message, claim: { ...entry.claim, response }, acceptedAt: deps.clock.now() })
      if (deps.clock.now().getTime() - flushedAtMs >= MARK_FLUSH_MS) {
        await flush()
        flushedAtMs = deps.clock.now().getTime()
      }
    }
  } finally {
    connection.release()
  }
  await flush()
}

/**
 * Marks the sent messages, each by its own claim. The store groups the marks asked for in one turn
 * into one statement (`createMarkSentBatcher`), so a batch's marks are one UPDATE and one commit.
 */
async function markAll(
  sent: ReadonlyArray<{ message: ClaimedMessage; claim: SentClaim; acceptedAt: Date }>,
  deps: SendBatchDeps,
): Promise<BatchItem[]> {
  let marked: boolean[]
  try {
    marked = await withRetries(() => Promise.all(sent.map((entry) => deps.store.markSent(entry.claim))))
  } catch (error) {
    // The server has every one of them: from here on they are only ever recorded, with their tokens.
    return sent.map(({ message, claim }) => ({
      messageId: message.id,
      kind: 'not-recorded',
      generation: message.generation,
      error: new SendNotRecordedError(message.id, claim.lockToken, {
        cause: error,
        response: claim.response ?? undefined,
      }),
    }))
  }
  return sent.map(({ message, acceptedAt }, index) => {
    const recorded = marked[index] === true
    if (!recorded) {
      deps.logger?.warn({ messageId: message.id, tenantId: message.tenantId }, 'send claim was taken over')
    }
    return { messageId: message.id, kind: 'sent', createdAt: message.createdAt, acceptedAt, recorded }
  })
}

/** A failed send recorded as one message's would be (`settleSendError`), then said as an item. */
async function settledItem(
  error: unknown,
  entry: Ready,
  deps: SendBatchDeps,
  attempt: { final: boolean },
): Promise<BatchItem> {
  try {
    const outcome = await settleSendError(error, entry.message, entry.claim, deps, attempt)
    // Only a signing failure settles without throwing: the message is held.
    return outcome.kind === 'skipped'
      ? { messageId: entry.message.id, kind: 'skipped', reason: outcome.reason }
      : failedItem(new Error(`unexpected outcome ${outcome.kind} of a failed send`), entry.message, deps)
  } catch (settled) {
    return failedItem(settled, entry.message, deps)
  }
}

/** The item of a send failure that `settleFailure` has recorded (or that failed before any send). */
function failedItem(error: unknown, message: ClaimedMessage, deps: SendBatchDeps): BatchItem {
  const { id: messageId, generation } = message
  if (error instanceof SendNotRecordedError) return { messageId, kind: 'not-recorded', error, generation }
  if (isOutcomeUnknown(error)) {
    return { messageId, kind: 'outcome-unknown', error, generation, retryInMs: deps.lockMs }
  }
  if (isPermanentFailure(error)) {
    return { messageId, kind: 'failed', error, generation, attempts: message.attempts }
  }
  return { messageId, kind: 'retry', error, generation }
}

/** An outcome settled before any SMTP (`prepareClaimed`): skipped, or given back for later. */
function note(
  outcome: SendOutcome,
  message: ClaimedMessage,
  items: BatchItem[],
  waiting: Map<string, number>,
): void {
  if (outcome.kind === 'skipped')
    items.push({ messageId: message.id, kind: 'skipped', reason: outcome.reason })
  else if (outcome.kind === 'deferred') waiting.set(message.id, outcome.delayMs)
  // 'sent' does not come out of the steps before the connection.
}

async function giveBackAll(
  entries: readonly Ready[],
  delayMs: number,
  deps: SendBatchDeps,
  waiting: Map<string, number>,
): Promise<void> {
  await Promise.all(entries.map((entry) => giveBack(entry.claim, delayMs, deps)))
  for (const entry of entries) waiting.set(entry.message.id, delayMs)
}

/**
 * MX mode: what the provider made of a failed send. A throttle (`defer`) answers the deferral that
 * stops the batch; anything else is the message's own failure (undefined). A verdict that cannot be
 * had (its state not written) stops the batch too, the rest back shortly: a provider that may have
 * said slow down is not sent more on a guess.
 */
async function throttled(
  error: unknown,
  entry: Ready,
  route: ReceiverRoute,
  deps: SendBatchDeps,
): Promise<{ delayMs: number; provider: string; reason: string } | undefined> {
  const receivers = deps.receivers as NonNullable<SendBatchDeps['receivers']>
  try {
    const verdict = await receivers.learn({
      ...receiverAskOf(entry),
      route,
      outcome: { kind: 'failed', error },
    })
    return verdict.kind === 'defer' ? { ...verdict, reason: verdict.reply } : undefined
  } catch (learnError) {
    deps.logger?.warn(
      { provider: route.provider, err: (learnError as Error).message },
      'could not learn from a receiver’s reply; the rest of the batch waits',
    )
    return { delayMs: NO_CONNECTION_RETRY_MS, provider: route.provider, reason: reasonOf(error) }
  }
}

/**
 * Messages the provider has no room for now: each given back for the provider's next slot, its
 * attempt not spent (`deferToReceiver`); one deferred past the maximum age fails instead, as its own.
 */
async function deferAllToReceiver(
  entries: readonly Ready[],
  deferral: { delayMs: number; provider: string; reason: string },
  deps: SendBatchDeps,
  tally: Tally,
): Promise<void> {
  for (const entry of entries) {
    try {
      await deferToReceiver(entry.claim, entry.message, deferral, deps)
      tally.waiting.set(entry.message.id, deferral.delayMs)
    } catch (error) {
      tally.items.push(await settledItem(error, entry, deps, tally.attempt))
    }
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A connection held after a failed reserve is retried this soon. */
const NO_CONNECTION_RETRY_MS = 1_000

/**
 * The job comes back once for all of its waiting messages, at the earliest of their times: a message
 * whose time has not come yet is refused again cheaply (its claim or its token), never sent early.
 */
function restOf(waiting: ReadonlyMap<string, number>): BatchOutcome['rest'] {
  if (waiting.size === 0) return null
  return { messageIds: [...waiting.keys()], delayMs: Math.min(...waiting.values()) }
}

/** The mailer's held connection; a mailer without one reserves a slot per send. */
async function holdConnection(
  mailer: Mailer,
  route: ReceiverRoute | undefined,
  options: ReserveOptions,
): Promise<HeldConnection> {
  if (mailer.hold) return mailer.hold(route, options)
  return {
    async send(mail) {
      return (await mailer.reserve(route, options)).send(mail)
    },
    release() {},
  }
}

/**
 * One token take per tenant of the batch (several tenants' at once): each tenant's first messages,
 * as many as its bucket granted, in the batch's order; the rest of each tenant's given back until
 * its own bucket's time.
 */
async function admitEachTenant(
  gate: SendGate,
  ready: readonly Ready[],
): Promise<{ granted: Ready[]; refused: Array<{ entries: Ready[]; delayMs: number }> }> {
  const admissions = await Promise.all(
    [...groupBy(ready, (entry) => entry.message.tenantId)].map(async ([tenantId, entries]) => {
      const first = entries[0] as Ready
      const grant = await admitUpTo(gate, { tenantId, lane: first.message.lane, count: entries.length })
      return { entries, grant }
    }),
  )
  const sendable = new Set<Ready>()
  const refused: Array<{ entries: Ready[]; delayMs: number }> = []
  for (const { entries, grant } of admissions) {
    for (const entry of entries.slice(0, grant.granted)) sendable.add(entry)
    if (grant.granted < entries.length) {
      refused.push({ entries: entries.slice(grant.granted), delayMs: grant.delayMs })
    }
  }
  return { granted: ready.filter((entry) => sendable.has(entry)), refused }
}

/** The gate's batch take; a gate without one is asked once per message until it refuses. */
async function admitUpTo(
  gate: SendGate,
  input: { tenantId: string; lane: ClaimedMessage['lane']; count: number },
): Promise<BatchAdmission> {
  if (gate.admitUpTo) return gate.admitUpTo(input)
  for (let granted = 0; granted < input.count; granted++) {
    const admission = await gate.admit(input)
    if (!admission.ok) return { granted, delayMs: admission.delayMs }
  }
  return { granted: input.count, delayMs: 0 }
}
