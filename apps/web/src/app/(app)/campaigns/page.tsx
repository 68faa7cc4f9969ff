import {
  type CampaignCounts,
  type CampaignView,
  campaignMessageCounts,
  listCampaigns,
} from '@fairlane/db/queries/campaigns'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { StatusBadge } from '@/components/status-badge'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { scheduleText } from './schedule-text'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Campaigns' }

const dash = <span className="muted">—</span>

function campaignColumns(counts: Map<string, CampaignCounts>): DataColumn<CampaignView>[] {
  return [
    { header: 'Name', cell: (campaign) => <Link href={`/campaigns/${campaign.id}`}>{campaign.name}</Link> },
    { header: 'Status', cell: (campaign) => <StatusBadge status={campaign.status} /> },
    { header: 'Send time (local)', cell: (campaign) => scheduleText(campaign)?.local || dash },
    { header: 'Send time (UTC)', cell: (campaign) => scheduleText(campaign)?.utc ?? dash },
    {
      header: 'Audience',
      cell: (campaign) =>
        campaign.segmentName
          ? `Segment: ${campaign.segmentName}`
          : campaign.listName
            ? `List: ${campaign.listName}`
            : 'All subscribed',
    },
    {
      header: 'Pending / queued / sent / failed / suppressed',
      cell: (campaign) => {
        const count = counts.get(campaign.id)
        return count
          ? `${count.pending} / ${count.queued} / ${count.sent} / ${count.failed} / ${count.suppressed}`
          : '—'
      },
    },
  ]
}

export default async function CampaignsPage() {
  const session = await requireTenantSession()
  const { db } = container().database
  const campaigns = await listCampaigns(db, { tenantId: session.tenantId, limit: 100 })
  const counts = await campaignMessageCounts(db, {
    tenantId: session.tenantId,
    campaignIds: campaigns.map((campaign) => campaign.id),
  })
  return (
    <>
      <div className="page-header">
        <h1>Campaigns</h1>
        <Link href="/campaigns/new" className="button">
          New campaign
        </Link>
      </div>
      <DataTable
        caption="Your campaigns, newest first"
        wrapClassName="card"
        columns={campaignColumns(counts)}
        rows={campaigns}
        rowKey={(campaign) => campaign.id}
        empty={
          <p className="card">No campaigns yet. Create one to write, preview and schedule a newsletter.</p>
        }
      />
    </>
  )
}
