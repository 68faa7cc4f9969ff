import type { Metadata } from 'next'
import Link from 'next/link'
import { redirect } from 'next/navigation'
import { getSignedInUser, getTenantSession } from '@/server/auth/session'
import { SignInForm } from './sign-in-form'

export const metadata: Metadata = { title: 'Sign in' }

export default async function SignInPage() {
  if (await getTenantSession()) redirect('/dashboard')
  // A platform admin who belongs to no tenant has only the admin console to go to.
  if ((await getSignedInUser())?.isPlatformAdmin) redirect('/admin')
  return (
    <>
      <h1>Sign in</h1>
      <SignInForm />
      <p>
        <Link href="/forgot-password">Forgot password?</Link>
      </p>
      <p>
        New to Fairlane? <Link href="/sign-up">Create an account</Link>
      </p>
    </>
  )
}
