'use server'

import { headers } from 'next/headers'
import { requestPasswordReset } from '@/server/accounts/password-reset'
import { container } from '@/server/container'

export interface ForgotPasswordState {
  email: string
  error?: string
  /** Set once a request went through: the same words whether or not the address has an account. */
  sentTo?: string
}

export async function forgotPasswordAction(
  _previous: ForgotPasswordState,
  formData: FormData,
): Promise<ForgotPasswordState> {
  const email = String(formData.get('email') ?? '')
  const outcome = await requestPasswordReset({ email }, { auth: container().auth, headers: await headers() })
  if (outcome.kind === 'invalid') return { email, error: outcome.error }
  if (outcome.kind === 'throttled') return { email, error: outcome.message }
  return { email: '', sentTo: outcome.email }
}
