import { createHash } from 'node:crypto'
import { AppError, isAppError, validationFailed } from '../errors/app-error'
import type { SenderChoice } from '../senders/ports'
import type { AcceptMessageResult } from './accept-message'
import {
  created,
  laneOfContent,
  planOf,
  replay,
  requestBytes,
  takeRecipientAllowance,
} from './accept-message'
import { takePlanAllowance } from './admit-by-plan'
import { decideQuota, quotaRefusal } from './admit-by-quota'
import { requestHash } from './canonical-json'
import { IDEMPOTENCY_KEY_TTL_MS, parseIdempotencyKey } from './idempotency-key'
import { messageCost } from './message-cost'
import { parseMessageRequest } from './message-request'
import type { AcceptDeps, AcceptTransaction } from './ports'
import { type PreparedMessage, prepareMessage } from './prepare-message'
import { scheduledUntil } from './send-at'
import { isRecipientLimited } from './template-lanes'
import { hasQuota, type Quota, type TenantPlan } from './tenant-plans'

/** Items per `POST /api/v1/messages/batch`; more is a 400 naming `messages`. */
export const MAX_BATCH_MESSAGES = 500

export interface AcceptBatchInput {
  tenantId: string
  /** The parsed JSON body `{ messages: [...] }`, not yet validated. */
  body: unknown
  /** The call's Idempotency-Key: each item without its own key gets one derived from it and its index. */
  idempotencyKey: string | null
  defaultSender: SenderChoice
  keyDomain?: string | null
  /** An item whose JSON is larger than this (the single call's cap) is refused on its own (413). */
  maxItemBytes?: number
  /** The tenant's plan when the caller already read it; else `deps.tenantPlans`. */
  tenantPlan?: TenantPlan
}

export type BatchItemResult =
  | { index: number; outcome: 'accepted'; message: AcceptMessageResult }
  | { index: number; outcome: 'refused'; error: AppError }

export interface AcceptBatchResult {
  results: BatchItemResult[]
}

interface PendingItem {
  index: number
  prepared: PreparedMessage
  hash: string
  /** The key's earlier message is past the TTL: released in the write transaction, as acceptMessage does. */
  releaseExpiredKey: boolean
}

/**
 * `POST /api/v1/messages/batch`: each item is parsed, admitted by the plan, rendered and given its
 * sender on its own, exactly as `POST /api/v1/messages` would (a bad address is that item's 400, over
 * the plan that item's 429); then every item that passed is written in ONE transaction (all of them or,
 * if the database fails, none, and the call fails). With an Idempotency-Key on the call, item `i` uses
 * the key `batch:<hash of the call's key>:<i>` unless it names its own `idempotencyKey`, so a retry of
 * the same call answers the same ids and writes no new rows.
 */
export async function acceptBatch(input: AcceptBatchInput, deps: AcceptDeps): Promise<AcceptBatchResult> {
  const items = parseBatchBody(input.body)
  const now = deps.clock.now()
  const tenantPlan = await planOf(input, deps)
  const keyCutoff = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS)
  const results: BatchItemResult[] = []
  const pending: PendingItem[] = []

  for (const [index, item] of items.entries()) {
    try {
      const outcome = await admitItem(index, item, { input, deps, now, keyCutoff, tenantPlan })
      if ('prepared' in outcome) pending.push(outcome)
      else results.push({ index, outcome: 'accepted', message: outcome })
    } catch (error) {
      if (!isAppError(error)) throw error
      results.push({ index, outcome: 'refused', error })
    }
  }

  if (pending.length > 0) {
    const quota = hasQuota(tenantPlan.quota) ? tenantPlan.quota : null
    const written = await deps.store.transaction((tx) => writeAll(tx, pending, { quota, now }))
    results.push(...written)
  }
  return { results: results.sort((a, b) => a.index - b.index) }
}

function parseBatchBody(body: unknown): unknown[] {
  const messages =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>).messages
      : undefined
  const extra =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? Object.keys(body).filter((key) => key !== 'messages')
      : []
  if (!Array.isArray(messages)) {
    throw validationFailed([{ path: 'messages', message: 'must be an array of messages' }])
  }
  if (messages.length === 0) throw validationFailed([{ path: 'messages', message: 'must not be empty' }])
  if (messages.length > MAX_BATCH_MESSAGES) {
    throw validationFailed([
      {
        path: 'messages',
        message: `must hold at most ${MAX_BATCH_MESSAGES} messages (got ${messages.length})`,
      },
    ])
  }
  if (extra.length > 0) {
    throw validationFailed(extra.map((key) => ({ path: key, message: 'is not a field of a batch' })))
  }
  return messages
}

/** The item's own `idempotencyKey` (taken out of the body before it is validated), or the derived one. */
function itemKey(
  index: number,
  item: unknown,
  callKey: string | null,
): { key: string | null; body: unknown } {
  if (typeof item !== 'object' || item === null || Array.isArray(item) || !('idempotencyKey' in item)) {
    return { key: callKey === null ? null : derivedKey(callKey, index), body: item }
  }
  const { idempotencyKey, ...body } = item as Record<string, unknown>
  if (typeof idempotencyKey !== 'string') {
    throw validationFailed([{ path: 'idempotencyKey', message: 'must be a string' }])
  }
  try {
    return { key: parseIdempotencyKey(idempotencyKey), body }
  } catch {
    throw validationFailed([
      { path: 'idempotencyKey', message: 'must be 1 to 255 printable ASCII characters' },
    ])
  }
}

function derivedKey(callKey: string, index: number): string {
  return `batch:${createHash('sha256').update(callKey).digest('base64url').slice(0, 32)}:${index}`
}

async function admitItem(
  index: number,
  item: unknown,
  context: { input: AcceptBatchInput; deps: AcceptDeps; now: Date; keyCutoff: Date; tenantPlan: TenantPlan },
): Promise<AcceptMessageResult | PendingItem> {
  const { input, deps, now, keyCutoff } = context
  const { tenantId } = input
  if (input.maxItemBytes !== undefined && Buffer.byteLength(JSON.stringify(item)) > input.maxItemBytes) {
    throw new AppError('payload_too_large', `This message is larger than ${input.maxItemBytes} bytes`)
  }
  const { key, body } = itemKey(index, item, input.idempotencyKey)
  const request = parseMessageRequest(body, deps.attachmentRules)
  const hash = requestHash(body)
  const existing =
    key === null ? null : await deps.store.findByIdempotencyKey({ tenantId, idempotencyKey: key })
  if (existing && existing.createdAt > keyCutoff) return replay(existing, hash)
  const sendAt = scheduledUntil(request.sendAt, now)
  if (deps.planAdmission && sendAt === null) {
    await takePlanAllowance(
      {
        tenantId,
        lane: laneOfContent(request.content),
        own: context.tenantPlan.transactional,
        cost: messageCost(requestBytes(request)),
      },
      deps.planAdmission,
    )
  }
  const prepared = await prepareMessage(
    request,
    {
      tenantId,
      idempotencyKey: key,
      hash,
      now,
      sendAt,
      source: 'batch',
      defaultSender: input.defaultSender,
      keyDomain: input.keyDomain ?? null,
    },
    deps,
  )
  if (isRecipientLimited(prepared.message.template)) await takeRecipientAllowance(deps, prepared.message)
  return { index, prepared, hash, releaseExpiredKey: existing !== null }
}

/**
 * One transaction: a key taken meanwhile by a concurrent call answers with that call's message. With a
 * quota, the tenant's usage is read once under its lock (as a single accept does) and each new item
 * counts against it in order: the items past the quota get their own 429 `quota`, the rest are written.
 */
async function writeAll(
  tx: AcceptTransaction,
  pending: readonly PendingItem[],
  context: { quota: Quota | null; now: Date },
): Promise<BatchItemResult[]> {
  const results: BatchItemResult[] = []
  const { quota, now } = context
  const first = pending[0]
  const usage =
    quota === null || !first
      ? null
      : await tx.lockQuotaUsage({ tenantId: first.prepared.message.tenantId, now })
  let added = 0
  for (const { index, prepared, hash, releaseExpiredKey } of pending) {
    if (quota !== null && usage !== null) {
      const counted = { usedToday: usage.usedToday + added, usedThisMonth: usage.usedThisMonth + added }
      const decision = decideQuota(quota, counted, now)
      if (!decision.allowed) {
        results.push({ index, outcome: 'refused', error: quotaRefusal(decision, now) })
        continue
      }
    }
    const { message, event } = prepared
    const { tenantId, idempotencyKey } = message
    if (releaseExpiredKey && idempotencyKey !== null) {
      const createdBefore = new Date(message.queuedAt.getTime() - IDEMPOTENCY_KEY_TTL_MS)
      await tx.releaseIdempotencyKey({ tenantId, idempotencyKey, createdBefore })
    }
    if (await tx.insertQueuedMessage(message, event)) {
      added += 1
      results.push({ index, outcome: 'accepted', message: created(message) })
      continue
    }
    const winner =
      idempotencyKey === null ? null : await tx.findByIdempotencyKey({ tenantId, idempotencyKey })
    if (!winner) throw new Error('insert refused by the idempotency key, but no row holds the key')
    try {
      results.push({ index, outcome: 'accepted', message: replay(winner, hash) })
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      results.push({ index, outcome: 'refused', error })
    }
  }
  return results
}
