import type { Metadata } from 'next'
import { headers } from 'next/headers'
import Link from 'next/link'
import { ResendVerification } from '@/components/resend-verification'
import { container } from '@/server/container'

export const metadata: Metadata = { title: 'Verify your email' }

/**
 * Where the verification link (`/api/auth/verify-email?token=…`) lands after better-auth checked it:
 * no `error` when the address is verified (now or before: using the link twice changes nothing),
 * `error=TOKEN_EXPIRED` after 24 hours, `INVALID_TOKEN`/`USER_NOT_FOUND` for a forged or foreign one.
 */
export default async function VerifyEmailPage(props: {
  searchParams: Promise<{ error?: string | string[] }>
}) {
  const { error } = await props.searchParams
  const session = await container().auth.api.getSession({ headers: await headers() })
  const verified = session?.user.emailVerified === true
  if (error !== undefined && !verified) {
    return (
      <>
        <h1>This link does not work</h1>
        <div className="form-error" role="alert" data-testid="invalid-verification-link">
          <p>
            {error === 'TOKEN_EXPIRED'
              ? 'This verification link has expired (links work for 24 hours).'
              : 'This verification link is not valid.'}{' '}
            Your email address has not been verified.
          </p>
        </div>
        <NextStep signedIn={session !== null} />
      </>
    )
  }
  if (session && !verified) {
    return (
      <>
        <h1>Verify your email</h1>
        <p>
          We sent a link to {session.user.email}. Open it to verify your address: until then you can look
          around, but not send campaigns or create API keys.
        </p>
        <NextStep signedIn />
      </>
    )
  }
  return (
    <>
      <h1>Your email is verified</h1>
      <p className="notice" role="status" data-testid="email-verified">
        Thank you: your address is confirmed.
      </p>
      <p>
        {session ? <Link href="/dashboard">Go to your dashboard</Link> : <Link href="/sign-in">Sign in</Link>}
      </p>
    </>
  )
}

function NextStep({ signedIn }: { signedIn: boolean }) {
  if (!signedIn) {
    return (
      <p>
        <Link href="/sign-in">Sign in</Link> to get a new link.
      </p>
    )
  }
  return (
    <>
      <ResendVerification />
      <p>
        <Link href="/dashboard">Go to your dashboard</Link>
      </p>
    </>
  )
}
