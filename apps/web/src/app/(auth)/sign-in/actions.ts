'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { isAuthApiError } from '@/server/auth/auth-api-error'
import { container } from '@/server/container'

export interface SignInState {
  email: string
  errors: { email?: string; password?: string; form?: string }
}

/**
 * Signs in through `auth.api.signInEmail`, which runs better-auth's hooks: the sign-in throttle
 * (server/auth/auth-throttle-hooks.ts) counts this attempt exactly as it counts one posted to
 * `/api/auth/sign-in/email`, by the client address the web entry stamped on the request.
 */
export async function signInAction(_previous: SignInState, formData: FormData): Promise<SignInState> {
  const email = String(formData.get('email') ?? '').trim()
  const password = String(formData.get('password') ?? '')
  const errors: SignInState['errors'] = {}
  if (!email) errors.email = 'Enter your email address'
  if (!password) errors.password = 'Enter your password'
  if (errors.email || errors.password) return { email, errors }

  const { auth } = container()
  let platformAdmin = false
  try {
    const signedIn = await auth.api.signInEmail({ body: { email, password }, headers: await headers() })
    platformAdmin = signedIn.user.isPlatformAdmin === true
  } catch (error) {
    if (isAuthApiError(error) && error.statusCode === 429) {
      const message = error.body?.message
      return { email, errors: { form: message ?? 'Too many sign-in attempts. Try again later.' } }
    }
    if (isAuthApiError(error) && error.statusCode < 500) {
      // One message for an unknown email and a wrong password, so the form does not reveal who has an account.
      return { email, errors: { password: 'Wrong email or password' } }
    }
    throw error
  }
  redirect(platformAdmin ? '/admin' : '/dashboard')
}
