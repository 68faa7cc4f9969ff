import {
  acceptMessage,
  checkPlanBeforeBody,
  DEFAULT_ATTACHMENT_RULES,
  IDEMPOTENCY_KEY_HEADER,
  parseIdempotencyKey,
} from '@fairlane/core/accept'
import { AppError } from '@fairlane/core/errors'
import { createAcceptStore } from '@fairlane/db/queries/accept-message'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { BODY_LIMITS, messageBodyLimit } from '../../http/body-limit-classes'
import { respond } from '../../http/errors'
import { readSizedJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import { createMessageRenderer } from './message-renderer'
import type { MessageAcceptedResponse } from './responses'

/**
 * An OTP request is a few hundred bytes; 64 KB leaves room for custom HTML without inviting abuse.
 * Attachments' base64 `content` is not counted here: it is held to MAX_MESSAGE_BYTES (decoded) instead.
 */
export const MAX_MESSAGE_BODY_BYTES = 64 * 1024

/**
 * The body is read up to what a message of MAX_MESSAGE_BYTES needs as base64 JSON (never more than the
 * web entry's cap), so attachments fit; then everything but the attachments' content must still fit
 * in MAX_MESSAGE_BODY_BYTES, as before attachments existed. A body cannot say whether it carries
 * attachments before it is read, so the large read is the price of the feature; it is paid only by a
 * caller whose API key passed (the key and the plan are checked before a byte of body is read).
 */
function readMessageBody(request: Request, deps: ApiDeps) {
  const maxMessageBytes = (deps.attachmentRules ?? DEFAULT_ATTACHMENT_RULES).maxMessageBytes
  return readSizedJsonBody(request, Math.min(messageBodyLimit(maxMessageBytes), BODY_LIMITS.message))
}

function holdToMessageLimit(body: unknown, sizeBytes: number): void {
  const attachments = (body as { attachments?: unknown } | null)?.attachments
  let contentChars = 0
  if (Array.isArray(attachments)) {
    for (const attachment of attachments) {
      const content = (attachment as { content?: unknown } | null)?.content
      if (typeof content === 'string') contentChars += content.length
    }
  }
  if (sizeBytes - contentChars > MAX_MESSAGE_BODY_BYTES) {
    throw new AppError(
      'payload_too_large',
      `The request body is larger than ${MAX_MESSAGE_BODY_BYTES / 1024} KB (attachments' content aside)`,
    )
  }
}

/**
 * `POST /api/v1/messages` → `202 { id, status: "queued", lane }`. A replay of an earlier request
 * (same Idempotency-Key and body) answers the same, with `Idempotent-Replayed: true`. A `from` not on
 * one of the tenant's verified domains → 422 naming `from`; without one, the template's, the tenant's
 * default (read with the API key) or the platform's sender applies.
 */
export function postMessage(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    // A tenant past its plan's horizon is refused before its body is read and before the request
    // limiters: a flood costs one Redis call a request (none while this process knows it is full).
    const { planAdmission } = deps
    const caller = await authorizeApiCall(
      request,
      deps,
      planAdmission
        ? (caller) => checkPlanBeforeBody(caller.tenantId, planAdmission, caller.plan.transactional)
        : undefined,
    )
    const { body, sizeBytes } = await readMessageBody(request, deps)
    holdToMessageLimit(body, sizeBytes)
    const idempotencyKey = parseIdempotencyKey(request.headers.get(IDEMPOTENCY_KEY_HEADER))
    const result = await acceptMessage(
      {
        tenantId: caller.tenantId,
        body,
        idempotencyKey,
        defaultSender: caller.defaultSender,
        keyDomain: caller.domain,
        tenantPlan: caller.plan,
      },
      {
        store: createAcceptStore(deps.db),
        renderer: deps.renderer ?? createMessageRenderer(deps.db),
        recipientLimiter: deps.limiters.recipient,
        senderDomains: createSenderDomains(deps.db),
        clock: deps.clock,
        ...(deps.planAdmission ? { planAdmission: deps.planAdmission } : {}),
        ...(deps.attachmentRules ? { attachmentRules: deps.attachmentRules } : {}),
      },
    )
    const headers: Record<string, string> = {
      location: `/api/v1/messages/${result.id}`,
      'cache-control': 'no-store',
    }
    if (result.replayed) headers['idempotent-replayed'] = 'true'
    return Response.json(
      { id: result.id, status: result.status, lane: result.lane } satisfies MessageAcceptedResponse,
      { status: 202, headers },
    )
  })
}
