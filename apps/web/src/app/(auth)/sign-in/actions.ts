'use server'

import { APIError } from 'better-auth'
import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { signInThrottle } from '@/server/auth/sign-in-throttle'
import { container } from '@/server/container'

export interface SignInState {
  email: string
  errors: { email?: string; password?: string; form?: string }
}

export async function signInAction(_previous: SignInState, formData: FormData): Promise<SignInState> {
  const email = String(formData.get('email') ?? '').trim()
  const password = String(formData.get('password') ?? '')
  const errors: SignInState['errors'] = {}
  if (!email) errors.email = 'Enter your email address'
  if (!password) errors.password = 'Enter your password'
  if (errors.email || errors.password) return { email, errors }

  const { auth, redis, config } = container()
  const throttle = signInThrottle(redis, `${config.QUEUE_PREFIX}:rl`)
  const waitSec = await throttle.retryAfterSec(email)
  if (waitSec > 0) {
    const minutes = Math.ceil(waitSec / 60)
    return {
      email,
      errors: {
        password: `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      },
    }
  }
  let platformAdmin = false
  try {
    const signedIn = await auth.api.signInEmail({ body: { email, password }, headers: await headers() })
    platformAdmin = signedIn.user.isPlatformAdmin === true
  } catch (error) {
    if (error instanceof APIError && error.statusCode < 500) {
      await throttle.recordFailure(email)
      // One message for an unknown email and a wrong password, so the form does not reveal who has an account.
      return { email, errors: { password: 'Wrong email or password' } }
    }
    throw error
  }
  redirect(platformAdmin ? '/admin' : '/dashboard')
}
