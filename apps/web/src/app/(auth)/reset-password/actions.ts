'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { resetPassword } from '@/server/accounts/password-reset'
import { container } from '@/server/container'

export interface ResetPasswordState {
  error?: string
  /** The token is expired, used or forged: the page shows that instead of the form. */
  invalidToken?: boolean
}

/**
 * Sets the new password, then signs the browser in with it (better-auth has already revoked every
 * other session of the user, the one in a forgotten laptop included).
 */
export async function resetPasswordAction(
  _previous: ResetPasswordState,
  formData: FormData,
): Promise<ResetPasswordState> {
  const token = String(formData.get('token') ?? '')
  const newPassword = String(formData.get('password') ?? '')
  const { auth } = container()
  const outcome = await resetPassword({ token, newPassword }, { auth })
  if (outcome.kind === 'invalid') return { error: outcome.error }
  if (outcome.kind === 'invalid-token') return { invalidToken: true }
  const signedIn = await auth.api.signInEmail({
    body: { email: outcome.email, password: newPassword },
    headers: await headers(),
  })
  redirect(signedIn.user.isPlatformAdmin === true ? '/admin' : '/dashboard')
}
