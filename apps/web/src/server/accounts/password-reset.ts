import { z } from 'zod'
import { isAuthApiError } from '../auth/auth-api-error'
import { type Auth, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/better-auth'
import { RESET_PASSWORD_LANDING } from './auth-mail'

const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email('Enter an email address such as you@example.com'))

export type RequestResetOutcome =
  /** The one answer for every address, known or not. */
  | { kind: 'sent'; email: string }
  | { kind: 'invalid'; error: string }
  | { kind: 'throttled'; message: string }

/**
 * Asks better-auth for a reset link (mailed as the platform tenant's `password-reset`). better-auth
 * answers an unknown address exactly as a known one (password.ts: `requestPasswordReset`), and so do we.
 */
export async function requestPasswordReset(
  input: { email: string },
  deps: { auth: Auth; headers?: Headers },
): Promise<RequestResetOutcome> {
  const parsed = emailSchema.safeParse(input.email)
  if (!parsed.success) return { kind: 'invalid', error: parsed.error.issues[0]?.message ?? 'Enter an email' }
  try {
    await deps.auth.api.requestPasswordReset({
      body: { email: parsed.data, redirectTo: RESET_PASSWORD_LANDING },
      ...(deps.headers ? { headers: deps.headers } : {}),
    })
  } catch (error) {
    if (isAuthApiError(error) && error.statusCode === 429) {
      return { kind: 'throttled', message: 'Too many reset requests. Try again in a minute.' }
    }
    throw error
  }
  return { kind: 'sent', email: parsed.data }
}

export type ResetOutcome =
  | { kind: 'reset'; email: string }
  /** Expired, already used or never issued: nothing was changed. */
  | { kind: 'invalid-token' }
  | { kind: 'invalid'; error: string }

/**
 * Sets the new password for a reset token. The token's owner is read first (the token is consumed by
 * the reset), so the caller can sign them in with the new password; better-auth revokes every other
 * session of the user in the same transaction (`revokeSessionsOnPasswordReset`).
 */
export async function resetPassword(
  input: { token: string; newPassword: string },
  deps: { auth: Auth },
): Promise<ResetOutcome> {
  if (input.newPassword.length < PASSWORD_MIN_LENGTH) {
    return { kind: 'invalid', error: `Use at least ${PASSWORD_MIN_LENGTH} characters` }
  }
  if (input.newPassword.length > PASSWORD_MAX_LENGTH) {
    return { kind: 'invalid', error: `Use at most ${PASSWORD_MAX_LENGTH} characters` }
  }
  const context = await deps.auth.$context
  const verification = input.token
    ? await context.internalAdapter.findVerificationValue(`reset-password:${input.token}`)
    : null
  if (!verification || verification.expiresAt < new Date()) return { kind: 'invalid-token' }
  const user = await context.internalAdapter.findUserById(verification.value)
  if (!user) return { kind: 'invalid-token' }
  try {
    await deps.auth.api.resetPassword({ body: { token: input.token, newPassword: input.newPassword } })
  } catch (error) {
    // A second tab used the same link a moment earlier: the token is gone.
    if (isAuthApiError(error) && error.body?.code === 'INVALID_TOKEN') return { kind: 'invalid-token' }
    throw error
  }
  return { kind: 'reset', email: user.email }
}
