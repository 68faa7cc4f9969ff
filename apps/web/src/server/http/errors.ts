import { randomUUID } from 'node:crypto'
import { AppError, type AppErrorCode } from '@fairlane/core/errors'
import type { Logger } from '../logger'

/** The one mapping from error codes to HTTP statuses; exhaustive, so a new code does not compile without one. */
export function httpStatusOf(code: AppErrorCode): number {
  switch (code) {
    case 'validation_failed':
    case 'invalid_json':
      return 400
    case 'unauthorized':
      return 401
    case 'forbidden':
      return 403
    case 'not_found':
      return 404
    case 'conflict':
      return 409
    case 'payload_too_large':
      return 413
    case 'unsupported_media_type':
      return 415
    case 'idempotency_key_reused':
    case 'unprocessable':
      return 422
    case 'rate_limited':
      return 429
    case 'service_unavailable':
      return 503
  }
}

const NO_STORE = { 'cache-control': 'no-store' }

/**
 * `{"error": {"code", "message", "details"?}}` for every failure. An error that is not an AppError is a
 * bug or an outage: it is logged with a reference the client can quote, and nothing of it is shown.
 */
export function errorResponse(error: unknown, logger: Logger): Response {
  if (error instanceof AppError) {
    const headers: Record<string, string> = { ...NO_STORE }
    if (error.code === 'rate_limited')
      headers['retry-after'] = String(Math.max(1, error.retryAfterSeconds ?? 1))
    if (error.code === 'unauthorized') headers['www-authenticate'] = 'Bearer realm="fairlane"'
    if (error.code === 'service_unavailable') headers['retry-after'] = '5'
    const body = {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      // `details.limit`: which limit a 429 ran into (`RATE_LIMIT_NAMES`).
      ...(error.limit
        ? {
            details: {
              limit: error.limit,
              ...(error.resetAt ? { resetAt: error.resetAt.toISOString() } : {}),
            },
          }
        : {}),
    }
    return Response.json({ error: body }, { status: httpStatusOf(error.code), headers })
  }
  const reference = randomUUID()
  logger.error({ err: error, reference }, 'request failed with an unexpected error')
  return Response.json(
    {
      error: {
        code: 'internal_error',
        message: `Something went wrong on our side (reference ${reference}).`,
      },
    },
    { status: 500, headers: NO_STORE },
  )
}

/** Runs a handler body and turns whatever it throws into the error response. */
export async function respond(logger: Logger, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work()
  } catch (error) {
    return errorResponse(error, logger)
  }
}
