import { isEditableCampaign, resolveSendAt } from '@fairlane/core'
import { findCampaign } from '@fairlane/db/queries/campaigns'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound, redirect } from 'next/navigation'
import { requireTenantSession } from '@/server/auth/session'
import { audienceValue } from '@/server/campaigns/campaign-form'
import { loadEditorData } from '@/server/campaigns/editor-data'
import { sendRefusal } from '@/server/campaigns/send-refusal'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { CampaignEditor } from '../../campaign-editor'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Edit campaign' }

export default async function EditCampaignPage({ params }: { params: Promise<{ id: string }> }) {
  const session = await requireTenantSession()
  const { id } = await params
  const campaign = isUuid(id)
    ? await findCampaign(container().database.db, { tenantId: session.tenantId, campaignId: id })
    : null
  if (!campaign) notFound()
  // Once dispatch has begun (or it was cancelled), the content is what recipients get: read-only.
  if (!isEditableCampaign(campaign.status)) redirect(`/campaigns/${id}?notice=not-editable`)
  const data = await loadEditorData(session.tenantId)
  // A stored time in a repeated hour keeps the instant chosen before, instead of asking again.
  const resolved =
    campaign.sendAtLocal && campaign.timeZone
      ? resolveSendAt({ local: campaign.sendAtLocal, timeZone: campaign.timeZone }, new Date(0))
      : null
  const fold =
    resolved?.kind === 'overlap'
      ? resolved.earlier.getTime() === campaign.sendAt?.getTime()
        ? 'earlier'
        : 'later'
      : ''
  return (
    <>
      <div className="page-header">
        <h1>Edit {campaign.name}</h1>
        <Link href={`/campaigns/${id}`}>Back to the campaign</Link>
      </div>
      <CampaignEditor
        campaignId={campaign.id}
        initial={{
          name: campaign.name,
          from: campaign.fromAddress ?? '',
          replyTo: campaign.replyTo ?? '',
          subject: campaign.subject,
          html: campaign.html,
          text: campaign.text ?? '',
          audience: audienceValue(campaign),
          schedule: campaign.status === 'draft' ? 'draft' : 'later',
          local: campaign.sendAtLocal ?? '',
          timeZone: campaign.timeZone ?? '',
          fold,
          trackOpens: campaign.trackOpens,
          trackClicks: campaign.trackClicks,
        }}
        defaultTestAddress={session.email}
        sendRefusal={sendRefusal(session)}
        {...data}
      />
    </>
  )
}
