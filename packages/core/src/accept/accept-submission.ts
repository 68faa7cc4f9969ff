import { createHash, randomUUID } from 'node:crypto'
import { isEmailAddress } from '../domain/email-address'
import { AppError, validationFailed } from '../errors/app-error'
import { takePlanAllowance } from './admit-by-plan'
import { admitByQuota } from './admit-by-quota'
import { checkSubmittedSender } from './check-submitted-sender'
import { IDEMPOTENCY_KEY_TTL_MS } from './idempotency-key'
import { messageCost } from './message-cost'
import type { NewSubmittedMessage, SubmissionDeps } from './submission-ports'
import { normaliseLineEndings, readSubmittedMessage } from './submitted-message'
import { DEFAULT_TENANT_PLAN, hasQuota, type TenantPlan } from './tenant-plans'

/** Recipients of one SMTP transaction; the 51st RCPT is answered `452 4.5.3`. */
export const MAX_SUBMISSION_RECIPIENTS = 50

/** RCPT TO: an address the API would take as `to` (one mailbox, no display name). */
export function isSubmissionRecipient(address: string): boolean {
  return isEmailAddress(address)
}

export interface AcceptSubmissionInput {
  tenantId: string
  /** The API key's domain restriction: the header From must be on it. */
  keyDomain: string | null
  /** RCPT TO addresses, in order. */
  recipients: string[]
  /** The DATA as received (dot-unstuffed). */
  data: Buffer
  maxMessageBytes: number
}

export interface AcceptSubmissionResult {
  /** One per recipient, in RCPT order. */
  messages: Array<{ id: string; to: string; replayed: boolean }>
}

/**
 * An SMTP submission: each recipient becomes a message of its own (status `queued`, source `smtp`),
 * all sharing the raw message as submitted, written with their outbox rows in one statement. The
 * header From is held to the same rule as the API's `from`; the plan admits each recipient on the
 * message's lane, as it admits each API call. Only after the write is the client told `250`.
 */
export async function acceptSubmission(
  input: AcceptSubmissionInput,
  deps: SubmissionDeps,
): Promise<AcceptSubmissionResult> {
  const { tenantId } = input
  if (input.recipients.length === 0) throw validationFailed([{ path: 'RCPT', message: 'no recipients' }])
  if (input.recipients.length > MAX_SUBMISSION_RECIPIENTS) {
    throw validationFailed([
      { path: 'RCPT', message: `at most ${MAX_SUBMISSION_RECIPIENTS} recipients per message` },
    ])
  }
  if (input.data.length > input.maxMessageBytes) {
    throw new AppError('payload_too_large', `message exceeds the limit of ${input.maxMessageBytes} bytes`)
  }
  const bad = input.recipients.find((to) => !isSubmissionRecipient(to))
  if (bad !== undefined) throw validationFailed([{ path: 'RCPT', message: `${bad} is not an address` }])
  const message = readSubmittedMessage(normaliseLineEndings(input.data))
  if (message.from === null || message.fromCount !== 1) {
    throw validationFailed([{ path: 'From', message: 'the message must have exactly one From header' }])
  }
  const sender = await checkSubmittedSender(
    { tenantId, address: message.from, field: 'From', keyDomain: input.keyDomain },
    deps,
  )
  const requestHash = createHash('sha256').update(message.raw).digest('hex')
  const now = deps.clock.now()

  const recipients = [...new Set(input.recipients)]
  const keyOf = (to: string) =>
    message.idempotencyKey === null ? null : `${message.idempotencyKey}:${to.toLowerCase()}`
  const replayed = new Map<string, string>()
  const cutoff = now.getTime() - IDEMPOTENCY_KEY_TTL_MS
  for (const to of recipients) {
    const key = keyOf(to)
    if (key === null) continue
    const existing = await deps.store.findByIdempotencyKey({ tenantId, idempotencyKey: key })
    if (existing === null || existing.createdAt.getTime() <= cutoff) continue
    if (existing.requestHash !== requestHash) {
      throw new AppError(
        'idempotency_key_reused',
        `Idempotency-Key ${message.idempotencyKey} was already used for a different message to ${to}`,
      )
    }
    replayed.set(to, existing.id)
  }

  const fresh: NewSubmittedMessage[] = recipients
    .filter((to) => !replayed.has(to))
    .map((to) => ({ id: randomUUID(), toAddress: to, idempotencyKey: keyOf(to) }))
  const plan = await planOf(tenantId, deps)
  await admitSubmission(
    { tenantId, lane: message.lane, count: fresh.length, plan, cost: messageCost(input.data.length) },
    deps,
  )
  // The quota as the API holds it: read under the tenant's quota lock, in the write's transaction.
  const quota = hasQuota(plan.quota) ? plan.quota : null
  const admitQuota =
    quota === null
      ? undefined
      : (usage: Parameters<typeof admitByQuota>[0]['usage']) =>
          admitByQuota({ quota, usage, now, count: fresh.length })
  const inserted = new Set(
    fresh.length === 0
      ? []
      : await deps.store.insertSubmission(
          {
            tenantId,
            lane: message.lane,
            messages: fresh,
            ...sender,
            subject: message.subject,
            variables: message.tags.length > 0 ? { tags: message.tags } : null,
            requestHash,
            raw: message.raw,
            sizeBytes: input.data.length,
            queuedAt: now,
          },
          admitQuota,
        ),
  )
  const results: AcceptSubmissionResult['messages'] = []
  for (const to of input.recipients) {
    const earlier = replayed.get(to)
    const made = fresh.find((candidate) => candidate.toAddress === to)
    if (earlier !== undefined) results.push({ id: earlier, to, replayed: true })
    else if (made && inserted.has(made.id)) results.push({ id: made.id, to, replayed: false })
    else
      results.push({ id: await winnerOf(deps, tenantId, made?.idempotencyKey ?? null), to, replayed: true })
  }
  return { messages: results }
}

/**
 * Admission for a submission, the one place it is decided: one plan allowance per recipient on the
 * message's lane, as each API message takes one. All are taken before anything is written, so a
 * refusal (451, retry in N s) leaves nothing half accepted; the allowances already taken are spent,
 * as a refused API call's is, and the bucket refills at the plan's rate.
 */
async function admitSubmission(
  input: { tenantId: string; lane: 'critical' | 'default'; count: number; plan: TenantPlan; cost: number },
  deps: SubmissionDeps,
): Promise<void> {
  const { planAdmission } = deps
  if (!planAdmission) return
  for (let index = 0; index < input.count; index++) {
    await takePlanAllowance(
      { tenantId: input.tenantId, lane: input.lane, own: input.plan.transactional, cost: input.cost },
      planAdmission,
    )
  }
}

/** The tenant's own plan (transactional part, quotas), from the same per-process cache the API's other ways in read. */
async function planOf(tenantId: string, deps: SubmissionDeps): Promise<TenantPlan> {
  const plans = deps.planAdmission?.tenantPlans
  return plans ? plans.planOf(tenantId) : DEFAULT_TENANT_PLAN
}

/** A concurrent submission with the same key won the unique constraint: answer with its message. */
async function winnerOf(
  deps: SubmissionDeps,
  tenantId: string,
  idempotencyKey: string | null,
): Promise<string> {
  const winner =
    idempotencyKey === null ? null : await deps.store.findByIdempotencyKey({ tenantId, idempotencyKey })
  if (!winner) throw new Error('insert refused by the idempotency key, but no row holds the key')
  return winner.id
}
