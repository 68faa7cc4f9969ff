import type { Database } from '@fairlane/db'
import { createTenantWithOwner, deleteUser } from '@fairlane/db/queries/accounts'
import { z } from 'zod'
import { isAuthApiError } from '../auth/auth-api-error'
import { type Auth, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/better-auth'
import { type SignupMode, VERIFY_EMAIL_LANDING } from './auth-mail'

export const signUpSchema = z.object({
  company: z.string().trim().min(1, 'Enter your company’s name').max(100, 'Use at most 100 characters'),
  name: z.string().trim().min(1, 'Enter your name').max(100, 'Use at most 100 characters'),
  email: z.string().trim().toLowerCase().pipe(z.email('Enter an email address such as you@example.com')),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters`),
})

export type SignUpInput = z.input<typeof signUpSchema>
export type SignUpField = keyof SignUpInput
export type FieldErrors<F extends string> = Partial<Record<F, string>>

export type SignUpOutcome =
  | { kind: 'created'; userId: string; tenantId: string }
  | { kind: 'invalid'; errors: FieldErrors<SignUpField> }
  /** Too many sign-ups from this client address (auth-throttle.ts); nothing was created. */
  | { kind: 'throttled'; message: string; retryAfterSeconds: number }

export interface SignUpDeps {
  auth: Auth
  db: Database
  /** The request's headers; better-auth reads the origin and IP from them. */
  headers?: Headers
  /** SIGNUP_MODE: `approve` makes the tenant held for the platform admin's approval. Default `verify`. */
  signupMode?: SignupMode
}

/**
 * Creates the user through better-auth (which hashes the password and, with nextCookies, signs the
 * browser in), then the tenant and its owner membership in one transaction. If that transaction
 * fails the user is removed again, so a retry with the same email is not refused as a duplicate.
 */
export async function signUpTenant(input: SignUpInput, deps: SignUpDeps): Promise<SignUpOutcome> {
  const parsed = signUpSchema.safeParse(input)
  if (!parsed.success) return { kind: 'invalid', errors: fieldErrors(parsed.error) }
  const { company, name, email, password } = parsed.data

  let userId: string
  try {
    const created = await deps.auth.api.signUpEmail({
      // The verification mail (sent by better-auth on sign-up) links back to this page.
      body: { name, email, password, callbackURL: VERIFY_EMAIL_LANDING },
      ...(deps.headers ? { headers: deps.headers } : {}),
    })
    userId = created.user.id
  } catch (error) {
    const throttled = throttledBy(error)
    if (throttled) return throttled
    const refused = refusal(error)
    if (refused) return { kind: 'invalid', errors: refused }
    throw error
  }

  try {
    const { tenantId } = await createTenantWithOwner(deps.db, {
      userId,
      tenantName: company,
      held: deps.signupMode === 'approve',
    })
    return { kind: 'created', userId, tenantId }
  } catch (error) {
    await deleteUser(deps.db, { userId })
    throw error
  }
}

function fieldErrors(error: z.ZodError): FieldErrors<SignUpField> {
  const errors: FieldErrors<SignUpField> = {}
  for (const issue of error.issues) {
    const field = issue.path[0] as SignUpField
    errors[field] ??= issue.message
  }
  return errors
}

export function throttledBy(error: unknown): SignUpOutcome | null {
  if (!isAuthApiError(error) || error.statusCode !== 429) return null
  const body = error.body as { message?: string; retryAfterSeconds?: number } | undefined
  return {
    kind: 'throttled',
    message: body?.message ?? 'Too many sign-ups from your network. Try again later.',
    retryAfterSeconds: body?.retryAfterSeconds ?? 60,
  }
}

/** better-auth's refusals that belong next to a form field; anything else is a real failure. */
export function refusal(error: unknown): FieldErrors<SignUpField> | null {
  if (!isAuthApiError(error)) return null
  const code = error.body?.code ?? ''
  if (code.startsWith('USER_ALREADY_EXISTS')) {
    return { email: 'An account with this email already exists. Sign in instead?' }
  }
  if (code === 'INVALID_EMAIL') return { email: 'Enter an email address such as you@example.com' }
  if (code === 'PASSWORD_TOO_SHORT') return { password: `Use at least ${PASSWORD_MIN_LENGTH} characters` }
  if (code === 'PASSWORD_TOO_LONG') return { password: `Use at most ${PASSWORD_MAX_LENGTH} characters` }
  return null
}
