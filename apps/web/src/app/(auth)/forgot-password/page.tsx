import type { Metadata } from 'next'
import Link from 'next/link'
import { ForgotPasswordForm } from './forgot-password-form'

export const metadata: Metadata = { title: 'Forgot password' }

export default function ForgotPasswordPage() {
  return (
    <>
      <h1>Forgot your password?</h1>
      <p>Enter the email you sign in with and we will mail you a link to choose a new password.</p>
      <ForgotPasswordForm />
      <p>
        Remembered it? <Link href="/sign-in">Sign in</Link>
      </p>
    </>
  )
}
