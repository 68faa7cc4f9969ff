import type { Metadata } from 'next'
import { PASSWORD_MIN_LENGTH } from '@/server/auth/better-auth'
import { InvalidResetLink, ResetPasswordForm } from './reset-password-form'

export const metadata: Metadata = { title: 'Choose a new password' }

/**
 * The reset link (`/api/auth/reset-password/<token>`) lands here after better-auth looked the token
 * up: `?token=` when it is current, `?error=INVALID_TOKEN` when it is expired, used or forged. The
 * token is checked again when the form is sent, so a stale tab cannot change anything either.
 */
export default async function ResetPasswordPage(props: {
  searchParams: Promise<{ token?: string | string[]; error?: string | string[] }>
}) {
  const { token, error } = await props.searchParams
  const usable = typeof token === 'string' && token !== '' && error === undefined
  return (
    <>
      <h1>Choose a new password</h1>
      {usable ? <ResetPasswordForm token={token} minLength={PASSWORD_MIN_LENGTH} /> : <InvalidResetLink />}
    </>
  )
}
