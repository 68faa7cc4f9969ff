import type { Metadata } from 'next'
import { requirePlatformAdmin } from '@/server/auth/session'
import { OverviewLive } from './overview-live'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Overview' }

export default async function AdminOverviewPage() {
  await requirePlatformAdmin()
  return (
    <>
      <div className="page-header">
        <h1>Overview</h1>
        <span className="muted">Refreshes every 2 seconds</span>
      </div>
      <OverviewLive />
    </>
  )
}
