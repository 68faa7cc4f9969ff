import type { Metadata } from 'next'
import { requirePlatformAdmin } from '@/server/auth/session'
import { FairnessLive } from './fairness-live'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Fairness' }

export default async function FairnessPage() {
  await requirePlatformAdmin()
  return (
    <>
      <div className="page-header">
        <h1>Fairness</h1>
        <span className="muted">Who gets the bulk lane, against their weights</span>
      </div>
      <FairnessLive />
    </>
  )
}
