/**
 * The one error type use cases throw on purpose. Each code has one meaning that callers may rely
 * on; the web app maps codes to HTTP statuses in one switch (`apps/web/src/server/http/errors.ts`),
 * and anything that is not an AppError is an internal error (500, logged, never shown).
 */
export const APP_ERROR_CODES = [
  /** The body or a parameter does not fit the schema; `details` names each field. */
  'validation_failed',
  /** The body is not JSON (or not UTF-8). */
  'invalid_json',
  /** The body is not `application/json`. */
  'unsupported_media_type',
  /** The body is over the size limit (checked while reading, not only from Content-Length). */
  'payload_too_large',
  /** No credentials, unknown or revoked API key, wrong admin token. */
  'unauthorized',
  /** Authenticated, but this caller may not do this. */
  'forbidden',
  /** No such resource for this caller; also another tenant's id, so existence is never revealed. */
  'not_found',
  /** The resource is not in a state that allows the action (e.g. replaying a message already sent). */
  'conflict',
  /**
   * The `Idempotency-Key` was already used with another request body. Distinct from `conflict` so a
   * client can tell "you reused a key by mistake" (fix the client) from a state conflict.
   */
  'idempotency_key_reused',
  /**
   * Valid, but cannot be acted on as it stands (a campaign whose audience is empty): sending the same
   * request again will fail the same way until the data it depends on changes.
   */
  'unprocessable',
  /** Too many requests; `retryAfterSeconds` says when to try again. */
  'rate_limited',
  /** A dependency the action needs (Redis for the admin queue views) is not answering. */
  'service_unavailable',
] as const

export type AppErrorCode = (typeof APP_ERROR_CODES)[number]

/** One invalid field: `path` in dotted form (`variables.code`), `message` in plain words. */
export interface FieldIssue {
  path: string
  message: string
}

/** The limit a `rate_limited` error ran into: a client that knows which can wait or spread its calls. */
export const RATE_LIMIT_NAMES = [
  'api-key',
  'tenant',
  'recipient',
  /** A tenant's invitations per hour (INVITATIONS_PER_TENANT_PER_HOUR). */
  'invitations',
  /** A tenant's accepted transactional mail beyond what its lane plan sends within ACCEPT_HORIZON_MS. */
  'plan',
  /** A tenant's messages accepted this UTC day or calendar month, over its plan's quota (`resetAt`: when it opens again). */
  'quota',
] as const

export type RateLimitName = (typeof RATE_LIMIT_NAMES)[number]

export interface AppErrorOptions {
  details?: FieldIssue[]
  retryAfterSeconds?: number
  limit?: RateLimitName
  /** With `limit: 'quota'`: when the quota that refused opens again. */
  resetAt?: Date
  cause?: unknown
}

export class AppError extends Error {
  override readonly name = 'AppError'
  readonly details: FieldIssue[] | undefined
  readonly retryAfterSeconds: number | undefined
  readonly limit: RateLimitName | undefined
  readonly resetAt: Date | undefined

  constructor(
    readonly code: AppErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.details = options.details
    this.retryAfterSeconds = options.retryAfterSeconds
    this.limit = options.limit
    this.resetAt = options.resetAt
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError
}

/** A validation error whose message names the first field, so a log line alone says what was wrong. */
export function validationFailed(issues: FieldIssue[]): AppError {
  const first = issues[0]
  const summary = first ? `${first.path || 'body'}: ${first.message}` : 'the request is not valid'
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''
  return new AppError('validation_failed', `Invalid request: ${summary}${more}`, { details: issues })
}
