import { findInvitation } from '@fairlane/core'
import type { Metadata } from 'next'
import Link from 'next/link'
import { signOutAction } from '@/app/(app)/actions'
import { getSignedInUser } from '@/server/auth/session'
import { container } from '@/server/container'
import { teamUseCaseDeps } from '@/server/team/team-deps'
import { acceptInvitationAction } from './actions'
import { JoinForms } from './join-forms'

export const metadata: Metadata = { title: 'Invitation' }

/**
 * An invitation link: what it is for (or why it no longer works: expired, used, revoked, forged),
 * then accept as the signed-in user, or sign in / create an account here. Viewing changes nothing.
 */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params
  const user = await getSignedInUser()
  const found = await findInvitation(token, teamUseCaseDeps(container().api))
  if (found.kind === 'refused') {
    return (
      <>
        <h1>Invitation</h1>
        <p role="alert" data-testid="invitation-refused">
          {found.message}
        </p>
        <p>
          <Link href="/sign-in">Sign in</Link>
        </p>
      </>
    )
  }
  const { invitation } = found
  return (
    <>
      <h1>Join {invitation.tenantName}</h1>
      <p data-testid="invitation-summary">
        {invitation.invitedBy} invited {invitation.email} to join <strong>{invitation.tenantName}</strong> as{' '}
        {invitation.role}.
      </p>
      {user ? (
        <>
          <form action={acceptInvitationAction}>
            <input type="hidden" name="token" value={token} />
            <p>Signed in as {user.email}.</p>
            <button type="submit" className="button">
              Accept invitation
            </button>
          </form>
          <form action={signOutAction}>
            <button type="submit" className="button-secondary">
              Not you? Sign out
            </button>
          </form>
        </>
      ) : (
        <JoinForms token={token} email={invitation.email} />
      )}
    </>
  )
}
