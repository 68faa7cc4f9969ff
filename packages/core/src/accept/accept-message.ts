import { randomUUID } from 'node:crypto'
import { checkKeyDomain } from '../api-keys/key-scope'
import type { Lane } from '../domain/lanes'
import { AppError, validationFailed } from '../errors/app-error'
import type { MessagePublishEvent } from '../outbox/events'
import type { SenderChoice } from '../senders/ports'
import { type ResolvedSender, resolveSender } from '../senders/resolve-sender'
import { takePlanAllowance } from './admit-by-plan'
import { admitByQuota } from './admit-by-quota'
import { attachmentBytes } from './attachments'
import { requestHash } from './canonical-json'
import { isHeaderSafe } from './header-safe'
import { IDEMPOTENCY_KEY_TTL_MS } from './idempotency-key'
import { messageCost } from './message-cost'
import { type MessageContent, type MessageRequest, parseMessageRequest, utf8Bytes } from './message-request'
import type {
  AcceptDeps,
  AcceptedMessage,
  AcceptWriter,
  MessageSource,
  NewQueuedMessage,
  RenderedMessage,
} from './ports'
import { scheduledUntil } from './send-at'
import { isRecipientLimited, laneForTemplate } from './template-lanes'
import { DEFAULT_TENANT_PLAN, hasQuota, type TenantPlan } from './tenant-plans'

export interface AcceptMessageInput {
  tenantId: string
  /** The parsed JSON body, not yet validated. */
  body: unknown
  idempotencyKey: string | null
  /** The tenant's default From / Reply-To (read with the API key, or by the caller). */
  defaultSender: SenderChoice
  /** The API key's domain restriction: the From that applies must be on it (403 otherwise). */
  keyDomain?: string | null
  /** The tenant's plan when the caller already read it (the API key's row); else `deps.tenantPlans`. */
  tenantPlan?: TenantPlan
  /** The way in, stored on the message (`messages.source`); default `api`. */
  source?: string
}

export interface AcceptMessageResult {
  id: string
  /** `scheduled` when the request's `sendAt` is ahead: it waits in PostgreSQL for the releaser. */
  status: 'queued' | 'scheduled'
  lane: Lane
  /** True when an earlier request with the same key and body already made this message. */
  replayed: boolean
}

/**
 * `POST /api/v1/messages`: validate, render (so a missing variable is a 400 now, and the worker sends
 * exactly what was accepted), then write the message and its outbox row atomically and wake the
 * relay. Nothing here touches the queue Redis: an accepted message is safe in PostgreSQL.
 */
export async function acceptMessage(
  input: AcceptMessageInput,
  deps: AcceptDeps,
): Promise<AcceptMessageResult> {
  const request = parseMessageRequest(input.body, deps.attachmentRules)
  const hash = requestHash(input.body)
  const { tenantId, idempotencyKey } = input
  const now = deps.clock.now()
  const keyCutoff = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS)

  // A client retrying: answer from the row without rendering or writing anything.
  const existing =
    idempotencyKey === null ? null : await deps.store.findByIdempotencyKey({ tenantId, idempotencyKey })
  if (existing && existing.createdAt > keyCutoff) return replay(existing, hash)
  // Scheduled mail spends no accept allowance now: it is not sent now. At its time the releaser puts it
  // through the relay's fair claim and lane parking like any other, which hold it to the plan then.
  const sendAt = scheduledUntil(request.sendAt, now)
  // Before rendering and the database: a tenant past its plan's horizon costs no template lookup. A
  // request refused later on (a missing variable, a recipient limit) has spent its allowance; the
  // bucket refills at the plan's rate, so that costs the tenant a moment, never a mail for good.
  const tenantPlan = await planOf(input, deps)
  if (deps.planAdmission && sendAt === null) {
    await takePlanAllowance(
      {
        tenantId,
        lane: laneOfContent(request.content),
        own: tenantPlan.transactional,
        cost: messageCost(requestBytes(request)),
      },
      deps.planAdmission,
    )
  }

  const { sender: saved, ...rendered } = await render(deps, tenantId, request.content)
  // After the replay check: a retry costs no domain lookup. The request's own `from` must be on a
  // verified domain now (422); the template's or the default was checked when it was saved.
  const sender = await resolveSender(
    { tenantId, explicit: request.sender, saved: saved ?? null, defaults: input.defaultSender },
    { domains: deps.senderDomains },
  )
  checkKeyDomain(input.keyDomain ?? null, sender.fromAddress)
  const message = {
    ...newMessage(request, rendered, sender, { tenantId, idempotencyKey, hash, now, sendAt }),
    source: input.source ?? 'api',
  }
  const event: MessagePublishEvent = {
    v: 1,
    messageId: message.id,
    tenantId,
    lane: message.lane,
    generation: 0,
  }
  const limited = isRecipientLimited(rendered.template)
  // A tenant with a quota accepts in a transaction that reads its usage under its lock (admit-by-quota).
  // Its plan allowance was taken above: a request refused for the quota costs the tenant a moment of
  // its bucket, as any request refused after admission does.
  const quota = hasQuota(tenantPlan.quota) ? tenantPlan.quota : null

  if (idempotencyKey === null && quota === null) {
    // Every request is a new message, so the allowance is taken first and the write is one statement.
    if (limited) await takeRecipientAllowance(deps, message)
    await deps.store.insertQueuedMessage(message, event)
    return created(message)
  }
  if (!limited && existing === null && quota === null) return insertOrReplay(deps.store, message, event, hash)

  // An expired key is released in the same transaction that reuses it; and with a key, a limited
  // message takes its allowance only once its insert won, so concurrent retries spend one allowance
  // (a refusal rolls the insert back).
  return deps.store.transaction(async (tx) => {
    if (existing !== null && idempotencyKey !== null)
      await tx.releaseIdempotencyKey({ tenantId, idempotencyKey, createdBefore: keyCutoff })
    // Read before the insert counts this message; a replay (the key's winner) is not refused for it.
    const usage = quota === null ? null : await tx.lockQuotaUsage({ tenantId, now })
    const result = await insertOrReplay(tx, message, event, hash)
    if (quota !== null && usage !== null && !result.replayed) admitByQuota({ quota, usage, now })
    if (limited && !result.replayed) await takeRecipientAllowance(deps, message)
    return result
  })
}

async function insertOrReplay(
  writer: AcceptWriter,
  message: NewQueuedMessage,
  event: MessagePublishEvent,
  hash: string,
): Promise<AcceptMessageResult> {
  if (await writer.insertQueuedMessage(message, event)) return created(message)
  // A concurrent request with the same key won the unique constraint; answer with its message.
  const { tenantId, idempotencyKey } = message
  const winner =
    idempotencyKey === null ? null : await writer.findByIdempotencyKey({ tenantId, idempotencyKey })
  if (!winner) throw new Error('insert refused by the idempotency key, but no row holds the key')
  return replay(winner, hash)
}

export function newMessage(
  request: MessageRequest,
  rendered: RenderedMessage,
  sender: ResolvedSender,
  context: {
    tenantId: string
    idempotencyKey: string | null
    hash: string
    now: Date
    sendAt?: Date | null
    source?: MessageSource
  },
): NewQueuedMessage {
  return {
    id: randomUUID(),
    tenantId: context.tenantId,
    lane: laneForTemplate(rendered.template),
    toAddress: request.to,
    ...rendered,
    ...sender,
    idempotencyKey: context.idempotencyKey,
    requestHash: context.hash,
    queuedAt: context.now,
    trackOpens: request.tracking.opens,
    trackClicks: request.tracking.clicks,
    ...(request.attachments ? { attachments: request.attachments } : {}),
    sizeBytes:
      utf8Bytes(rendered.subject, rendered.html, rendered.text) + attachmentBytes(request.attachments ?? []),
    sendAt: context.sendAt ?? null,
    ...(context.source ? { source: context.source } : {}),
  }
}

export async function planOf(
  input: Pick<AcceptMessageInput, 'tenantId' | 'tenantPlan'>,
  deps: AcceptDeps,
): Promise<TenantPlan> {
  if (input.tenantPlan) return input.tenantPlan
  const plans = deps.tenantPlans ?? deps.planAdmission?.tenantPlans
  return plans ? plans.planOf(input.tenantId) : DEFAULT_TENANT_PLAN
}

/**
 * A request's size before rendering, for its cost in the plan: the decoded attachments and a custom
 * message's subject and bodies (a template's body is the tenant's, small and capped).
 */
export function requestBytes(request: MessageRequest): number {
  const content =
    request.content.kind === 'custom'
      ? utf8Bytes(request.content.subject, request.content.html, request.content.text)
      : 0
  return content + attachmentBytes(request.attachments ?? [])
}

/** The lane the rendered message will take: built-in templates are critical (`laneForTemplate`). */
export function laneOfContent(content: MessageContent): Lane {
  return laneForTemplate(content.kind === 'template' ? content.template : null)
}

export function created(message: NewQueuedMessage): AcceptMessageResult {
  const status = message.sendAt ? 'scheduled' : 'queued'
  return { id: message.id, status, lane: message.lane, replayed: false }
}

export function replay(existing: AcceptedMessage, hash: string): AcceptMessageResult {
  if (existing.requestHash !== hash) {
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request body',
    )
  }
  const status = existing.sendAt ? 'scheduled' : 'queued'
  return { id: existing.id, status, lane: existing.lane, replayed: true }
}

export async function takeRecipientAllowance(deps: AcceptDeps, message: NewQueuedMessage): Promise<void> {
  const address = message.toAddress.toLowerCase()
  const decision = await deps.recipientLimiter.consume({ tenantId: message.tenantId, address })
  if (!decision.allowed) {
    throw new AppError('rate_limited', `Too many ${message.template} messages to this recipient`, {
      retryAfterSeconds: decision.retryAfterSeconds,
      limit: 'recipient',
    })
  }
}

export async function render(
  deps: Pick<AcceptDeps, 'renderer'>,
  tenantId: string,
  content: MessageContent,
): Promise<RenderedMessage> {
  const outcome = await deps.renderer.render({ tenantId, content })
  if (!outcome.ok) throw validationFailed(outcome.issues)
  // The renderer checks the variables it puts in the subject; this is the last line of defence.
  if (!isHeaderSafe(outcome.message.subject)) {
    const path = content.kind === 'template' ? 'template' : 'subject'
    throw validationFailed([{ path, message: 'renders a subject with a line break' }])
  }
  return outcome.message
}
