import { isAppError } from '@fairlane/core/errors'
import type { Refusal } from './metrics'

export type SmtpError = Error & { responseCode: number }

/** An smtp-server reply: the text carries its own enhanced status code (RFC 3463). */
export function smtpError(code: number, text: string): SmtpError {
  return Object.assign(new Error(text), { responseCode: code })
}

/**
 * What a refusal of the accept use cases answers over SMTP, one switch for every `AppError` code.
 * A 4xx tells the client to keep the message and retry (smtp clients back off by themselves); a 5xx
 * that the message will not be taken as it is. Anything that is not an `AppError` is ours: 451.
 */
export function smtpReplyOf(error: unknown): { error: SmtpError; refusal: Refusal } {
  if (!isAppError(error)) {
    return {
      error: smtpError(451, '4.3.0 the message could not be accepted now; try again later'),
      refusal: 'error',
    }
  }
  switch (error.code) {
    case 'rate_limited': {
      const seconds = error.retryAfterSeconds ?? 1
      const what =
        error.limit === 'plan'
          ? "over this tenant's plan"
          : error.limit === 'quota'
            ? "over this tenant's quota"
            : `over a limit (${error.limit ?? 'rate'})`
      return {
        error: smtpError(451, `4.7.1 ${what}: ${error.message}; retry in ${seconds} s`),
        refusal: 'over-plan',
      }
    }
    case 'forbidden':
      return { error: smtpError(550, `5.7.1 ${error.message}`), refusal: 'sender' }
    case 'unauthorized':
      return { error: smtpError(535, `5.7.8 ${error.message}`), refusal: 'bad-key' }
    case 'payload_too_large':
      return { error: smtpError(552, `5.3.4 ${error.message}`), refusal: 'too-large' }
    case 'validation_failed':
    case 'invalid_json':
    case 'unsupported_media_type':
    case 'unprocessable':
    case 'idempotency_key_reused':
    case 'not_found':
    case 'conflict':
      return { error: smtpError(550, `5.6.0 ${error.message}`), refusal: 'invalid' }
    case 'service_unavailable':
      return { error: smtpError(451, `4.3.0 ${error.message}; try again later`), refusal: 'error' }
  }
}
