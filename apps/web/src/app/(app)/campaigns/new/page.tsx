import type { Metadata } from 'next'
import Link from 'next/link'
import { requireTenantSession } from '@/server/auth/session'
import { loadEditorData } from '@/server/campaigns/editor-data'
import { emptyValues } from '@/server/campaigns/editor-state'
import { CampaignEditor } from '../campaign-editor'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'New campaign' }

export default async function NewCampaignPage({
  searchParams,
}: {
  searchParams: Promise<{ audience?: string | string[] }>
}) {
  const session = await requireTenantSession()
  const data = await loadEditorData(session.tenantId)
  // "Send a campaign to this segment" links here with the audience chosen; only an offered one counts.
  const { audience } = await searchParams
  const offered = new Set([
    ...data.lists.map((list) => list.id),
    ...data.segments.map((s) => `segment:${s.id}`),
  ])
  const initial = emptyValues()
  if (typeof audience === 'string' && offered.has(audience)) initial.audience = audience
  return (
    <>
      <div className="page-header">
        <h1>New campaign</h1>
        <Link href="/campaigns">Back to campaigns</Link>
      </div>
      <CampaignEditor initial={initial} defaultTestAddress={session.email} {...data} />
    </>
  )
}
