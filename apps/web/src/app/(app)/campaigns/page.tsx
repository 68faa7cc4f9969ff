import { campaignMessageCounts, listCampaigns } from '@fairlane/db/queries/campaigns'
import type { Metadata } from 'next'
import Link from 'next/link'
import { StatusBadge } from '@/components/status-badge'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { scheduleText } from './schedule-text'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Campaigns' }

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
      {campaigns.length === 0 ? (
        <p className="card">No campaigns yet. Create one to write, preview and schedule a newsletter.</p>
      ) : (
        <div className="table-wrap card">
          <table className="table">
            <caption className="visually-hidden">Your campaigns, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Send time (local)</th>
                <th scope="col">Send time (UTC)</th>
                <th scope="col">Audience</th>
                <th scope="col">Pending / queued / sent / failed / suppressed</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map((campaign) => {
                const when = scheduleText(campaign)
                const count = counts.get(campaign.id)
                return (
                  <tr key={campaign.id}>
                    <td>
                      <Link href={`/campaigns/${campaign.id}`}>{campaign.name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={campaign.status} />
                    </td>
                    <td>{when?.local || <span className="muted">—</span>}</td>
                    <td>{when?.utc ?? <span className="muted">—</span>}</td>
                    <td>
                      {campaign.segmentName
                        ? `Segment: ${campaign.segmentName}`
                        : campaign.listName
                          ? `List: ${campaign.listName}`
                          : 'All subscribed'}
                    </td>
                    <td>
                      {count
                        ? `${count.pending} / ${count.queued} / ${count.sent} / ${count.failed} / ${count.suppressed}`
                        : '—'}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
