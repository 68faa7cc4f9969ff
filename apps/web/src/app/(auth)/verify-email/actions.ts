'use server'

import { headers } from 'next/headers'
import { VERIFY_EMAIL_LANDING } from '@/server/accounts/auth-mail'
import { isAuthApiError } from '@/server/auth/auth-api-error'
import { container } from '@/server/container'

export interface ResendVerificationState {
  sentTo?: string
  error?: string
}

/**
 * Mails the signed-in user a fresh verification link (the platform tenant's `verify-email`, critical
 * lane). better-auth sends only to the session's own, still unverified address.
 */
export async function resendVerificationAction(): Promise<ResendVerificationState> {
  const requestHeaders = await headers()
  const { auth } = container()
  const found = await auth.api.getSession({ headers: requestHeaders })
  if (!found) return { error: 'Sign in first, then ask for a new link.' }
  if (found.user.emailVerified) return { error: 'Your email is already verified.' }
  try {
    await auth.api.sendVerificationEmail({
      body: { email: found.user.email, callbackURL: VERIFY_EMAIL_LANDING },
      headers: requestHeaders,
    })
  } catch (error) {
    if (isAuthApiError(error) && error.statusCode === 429) {
      return { error: 'Too many links asked for. Try again in a minute.' }
    }
    throw error
  }
  return { sentTo: found.user.email }
}
