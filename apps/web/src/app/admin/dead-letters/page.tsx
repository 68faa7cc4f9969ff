import type { Metadata } from 'next'
import { requirePlatformAdmin } from '@/server/auth/session'
import { DeadLettersLive } from './dead-letters-live'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Dead letters' }

export default async function DeadLettersPage() {
  await requirePlatformAdmin()
  return (
    <>
      <div className="page-header">
        <h1>Dead letters</h1>
        <span className="muted">Messages that failed for good. Replay or discard, with a reason.</span>
      </div>
      <DeadLettersLive />
    </>
  )
}
