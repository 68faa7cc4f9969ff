import {
  acceptMessage,
  checkPlanBeforeBody,
  IDEMPOTENCY_KEY_HEADER,
  parseIdempotencyKey,
} from '@fairlane/core/accept'
import { createAcceptStore } from '@fairlane/db/queries/accept-message'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import { createMessageRenderer } from './message-renderer'
import type { MessageAcceptedResponse } from './responses'

/** An OTP request is a few hundred bytes; 64 KB leaves room for custom HTML without inviting abuse. */
export const MAX_MESSAGE_BODY_BYTES = 64 * 1024

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
    const body = await readJsonBody(request, MAX_MESSAGE_BODY_BYTES)
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
