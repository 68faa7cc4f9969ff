import type { Metadata } from 'next'
import Link from 'next/link'

export const metadata: Metadata = { title: 'Not allowed' }

/** What `forbidden()` renders, with HTTP status 403: the admin console for a tenant user, so far. */
export default function Forbidden() {
  return (
    <main>
      <div className="card auth-card" data-testid="forbidden">
        <h1>403 — not allowed</h1>
        <p>This part of Fairlane is for platform admins. Your account works for your own company only.</p>
        <p>
          <Link href="/dashboard">Back to your dashboard</Link>
        </p>
      </div>
    </main>
  )
}
