import type { Metadata } from 'next'
import { requirePlatformAdmin } from '@/server/auth/session'
import { FeedbackRatesLive } from './feedback-rates-live'
import { GuardrailLive } from './guardrail-live'
import { TenantsLive } from './tenants-live'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Tenants' }

export default async function TenantsPage() {
  await requirePlatformAdmin()
  return (
    <>
      <div className="page-header">
        <h1>Tenants</h1>
        <span className="muted">
          Backlog and sending right now; plans; the last 30 days; bounce and complaint rates
        </span>
      </div>
      <TenantsLive />
      <GuardrailLive />
      <FeedbackRatesLive />
    </>
  )
}
