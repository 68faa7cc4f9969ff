import {
  acceptBatch,
  checkPlanBeforeBody,
  IDEMPOTENCY_KEY_HEADER,
  MAX_BATCH_MESSAGES,
  parseIdempotencyKey,
} from '@fairlane/core/accept'
import { createAcceptStore } from '@fairlane/db/queries/accept-message'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { httpStatusOf, respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import { createMessageRenderer } from './message-renderer'
import { MAX_MESSAGE_BODY_BYTES } from './post-message'
import type { BatchAcceptedResponse } from './responses'

/**
 * 500 items of a typical size (an OTP is a few hundred bytes, a receipt a few KB) fit easily; 500 items
 * each at the single call's 64 KB cap do not (32 MB): a batch of large custom HTML is better split.
 */
export const MAX_BATCH_BODY_BYTES = 8 * 1024 * 1024

/**
 * `POST /api/v1/messages/batch { messages: [...≤500] }` → `200 { results: [{ index, status: 202, id } |
 * { index, status: 4xx, error }] }`: each item answered as `POST /api/v1/messages` would answer it
 * alone, the accepted ones written in one transaction. 501 items → 400 naming `messages`.
 */
export function postMessagesBatch(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const { planAdmission } = deps
    const caller = await authorizeApiCall(
      request,
      deps,
      planAdmission
        ? (caller) => checkPlanBeforeBody(caller.tenantId, planAdmission, caller.plan.transactional)
        : undefined,
    )
    const body = await readJsonBody(request, MAX_BATCH_BODY_BYTES)
    const idempotencyKey = parseIdempotencyKey(request.headers.get(IDEMPOTENCY_KEY_HEADER))
    const { results } = await acceptBatch(
      {
        tenantId: caller.tenantId,
        body,
        idempotencyKey,
        defaultSender: caller.defaultSender,
        keyDomain: caller.domain,
        maxItemBytes: MAX_MESSAGE_BODY_BYTES,
        tenantPlan: caller.plan,
      },
      {
        store: createAcceptStore(deps.db),
        renderer: deps.renderer ?? createMessageRenderer(deps.db),
        recipientLimiter: deps.limiters.recipient,
        senderDomains: createSenderDomains(deps.db),
        clock: deps.clock,
        ...(planAdmission ? { planAdmission } : {}),
      },
    )
    return Response.json(
      {
        results: results.map((result) =>
          result.outcome === 'accepted'
            ? { index: result.index, status: 202 as const, id: result.message.id }
            : {
                index: result.index,
                status: httpStatusOf(result.error.code),
                error: {
                  code: result.error.code,
                  message: result.error.message,
                  ...(result.error.details ? { details: result.error.details } : {}),
                  ...(result.error.limit
                    ? {
                        details: {
                          limit: result.error.limit,
                          retryAfterSeconds: result.error.retryAfterSeconds,
                        },
                      }
                    : {}),
                },
              },
        ),
      } satisfies BatchAcceptedResponse,
      { headers: { 'cache-control': 'no-store' } },
    )
  })
}

export { MAX_BATCH_MESSAGES }
