import { ResendVerification } from './resend-verification'

/**
 * Why a new tenant cannot send yet, on every page of the app until it can: an unverified email
 * (with a new link on request) and a tenant held for the platform admin's approval (SIGNUP_MODE).
 */
export function StandingBanner(props: { email: string; emailVerified: boolean; tenantApproved: boolean }) {
  if (props.emailVerified && props.tenantApproved) return null
  return (
    <section className="standing-banner" aria-label="Account standing" data-testid="standing-banner">
      {props.emailVerified ? null : (
        <>
          <p>
            <strong>Verify your email.</strong> Open the link we sent to {props.email} to send campaigns and
            create API keys. Everything else works already.
          </p>
          <ResendVerification />
        </>
      )}
      {props.tenantApproved ? null : (
        <p>
          <strong>Waiting for approval.</strong> The Fairlane team reviews new accounts before they send:
          until then you can set things up, but not send campaigns or create API keys.
        </p>
      )}
    </section>
  )
}
