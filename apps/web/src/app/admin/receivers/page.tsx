import type { Metadata } from 'next'
import { requirePlatformAdmin } from '@/server/auth/session'
import { ReceiversLive } from './receivers-live'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Receivers' }

export default async function ReceiversPage() {
  await requirePlatformAdmin()
  return (
    <>
      <div className="page-header">
        <h1>Receivers</h1>
        <span className="muted">Each mailbox provider’s pace per egress address (MX mode)</span>
      </div>
      <ReceiversLive />
    </>
  )
}
