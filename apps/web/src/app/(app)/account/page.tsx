import { findUserProfile } from '@fairlane/db/queries/profile'
import type { Metadata } from 'next'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { selectableTimeZones } from '@/server/time-zones'
import { ProfileForm } from './profile-form'

// Per-user and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Your account' }

/** The signed-in user's own settings, the same in every tenant they belong to. */
export default async function AccountPage() {
  const { session } = await authorize('profile.manage')
  const profile = await findUserProfile(container().database.db, { userId: session.userId })
  return (
    <>
      <div className="page-header">
        <h1>Your account</h1>
      </div>
      <section className="card">
        <h2>Profile</h2>
        <p className="muted">
          Signed in as {session.email}. Times across the app are shown in your time zone, with UTC when you
          hover over them.
        </p>
        <ProfileForm
          initial={{ name: profile?.name ?? session.name, timeZone: profile?.timeZone ?? '' }}
          zones={selectableTimeZones()}
        />
      </section>
    </>
  )
}
