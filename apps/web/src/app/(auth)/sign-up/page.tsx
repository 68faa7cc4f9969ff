import type { Metadata } from 'next'
import Link from 'next/link'
import { redirect } from 'next/navigation'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@/server/auth/better-auth'
import { getTenantSession } from '@/server/auth/session'
import { SignUpForm } from './sign-up-form'

export const metadata: Metadata = { title: 'Create an account' }

export default async function SignUpPage() {
  if (await getTenantSession()) redirect('/dashboard')
  return (
    <>
      <h1>Create your Fairlane account</h1>
      <p className="muted">Your company gets its own workspace on the standard plan; you are its owner.</p>
      <SignUpForm minPassword={PASSWORD_MIN_LENGTH} maxPassword={PASSWORD_MAX_LENGTH} />
      <p>
        Already have an account? <Link href="/sign-in">Sign in</Link>
      </p>
    </>
  )
}
