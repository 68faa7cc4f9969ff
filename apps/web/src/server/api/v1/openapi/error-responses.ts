import type { z } from 'zod'
import type { oas31, ZodOpenApiResponseObject } from 'zod-openapi'

/** The error statuses `/api/v1` answers, each with what it means there. */
const ERROR_STATUSES = {
  400: 'Invalid input: `details` names each wrong field (`validation_failed`), or the body is not JSON (`invalid_json`)',
  401: 'No API key, an unknown one or a revoked one (`unauthorized`)',
  403: 'The API key may not do this (`forbidden`): a `sending` key may only send messages (POST /api/v1/messages, POST /api/v1/messages/batch), read their status (GET /api/v1/messages/{id}) and cancel them (DELETE /api/v1/messages/{id}); a key restricted to a domain sends, schedules campaigns and sets the default sender only with a From on it. The message names the scope or the domain',
  404: 'No such resource for this key’s tenant (`not_found`); another tenant’s id answers the same',
  409: 'The resource is not in a state that allows this (`conflict`)',
  413: 'The body or one of its fields is over its limit (`payload_too_large`)',
  415: 'The body is not `application/json` in UTF-8 (`unsupported_media_type`)',
  422: 'Well-formed but not actionable: an Idempotency-Key reused with another body (`idempotency_key_reused`), or a `from` not on one of your verified sending domains, or a campaign sent now to an empty audience (`unprocessable`, `details` naming the field)',
  429: 'Too many requests for this key, this tenant or this recipient (`rate_limited`); wait Retry-After seconds',
} as const

export type ErrorStatus = keyof typeof ERROR_STATUSES

/** The error response of each status given, all in the one error shape; 429 says when to retry, 401 how to authenticate. */
export function errorResponses(
  statuses: readonly ErrorStatus[],
  schema: z.ZodType,
): Record<string, ZodOpenApiResponseObject> {
  const answers: Record<string, ZodOpenApiResponseObject> = {}
  for (const status of statuses) {
    const headers: oas31.HeadersObject | undefined =
      status === 429
        ? {
            'Retry-After': {
              description: 'Seconds to wait before trying again',
              schema: { type: 'integer' as const, minimum: 1 },
            },
          }
        : status === 401
          ? {
              'WWW-Authenticate': {
                description: '`Bearer realm="fairlane"`',
                schema: { type: 'string' as const },
              },
            }
          : undefined
    answers[String(status)] = {
      description: ERROR_STATUSES[status],
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema } },
    }
  }
  return answers
}
