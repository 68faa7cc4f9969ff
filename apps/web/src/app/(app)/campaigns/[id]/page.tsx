import { isEditableCampaign } from '@fairlane/core'
import { countAudience } from '@fairlane/db/queries/audience'
import { campaignMessageCounts, findCampaign } from '@fairlane/db/queries/campaigns'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { cancelCampaignAction } from '../actions'
import styles from '../campaigns.module.css'
import { scheduleText } from '../schedule-text'
import { LiveCounts } from './live-counts'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Campaign' }

const NOTICES: Record<string, string> = {
  cancelled: 'The campaign is cancelled. Nothing will be sent.',
  'not-cancellable': 'This campaign has started sending and can no longer be cancelled.',
  'not-editable': 'Only draft and scheduled campaigns can be edited.',
}

export default async function CampaignPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<{ notice?: string; confirm?: string }>
}) {
  const session = await requireTenantSession()
  const { id } = await params
  const { notice, confirm } = await searchParams
  const { db } = container().database
  // Another tenant's id reads as missing: a 404, never a hint that it exists.
  const campaign = isUuid(id) ? await findCampaign(db, { tenantId: session.tenantId, campaignId: id }) : null
  if (!campaign) notFound()
  const [counts, audience] = await Promise.all([
    campaignMessageCounts(db, { tenantId: session.tenantId, campaignIds: [campaign.id] }),
    countAudience(db, { tenantId: session.tenantId, listId: campaign.listId }),
  ])
  const when = scheduleText(campaign)
  const editable = isEditableCampaign(campaign.status)
  const noticeText = notice ? NOTICES[notice] : undefined
  return (
    <>
      <div className="page-header">
        <h1>{campaign.name}</h1>
        <Link href="/campaigns">All campaigns</Link>
      </div>
      {noticeText ? (
        <p className="notice" role="status">
          {noticeText}
        </p>
      ) : null}
      <section className="card" aria-labelledby="progress-title">
        <h2 id="progress-title">Progress</h2>
        <LiveCounts
          campaignId={campaign.id}
          initialStatus={campaign.status}
          initialCounts={
            counts.get(campaign.id) ?? { pending: 0, queued: 0, sent: 0, failed: 0, suppressed: 0 }
          }
        />
      </section>
      <section className="card" aria-labelledby="details-title">
        <h2 id="details-title">Details</h2>
        <dl className={styles.details}>
          <dt>Subject</dt>
          <dd>{campaign.subject}</dd>
          <dt>Audience</dt>
          <dd>
            {campaign.listName ? `List: ${campaign.listName}` : 'All subscribed contacts'} —{' '}
            {audience.recipients} recipients now ({audience.unsubscribed} unsubscribed and{' '}
            {audience.suppressed} suppressed left out)
          </dd>
          <dt>Send time (local)</dt>
          <dd data-testid="send-local">{when?.local || '—'}</dd>
          <dt>Send time (UTC)</dt>
          <dd data-testid="send-utc">{when?.utc ?? '—'}</dd>
        </dl>
      </section>
      {editable ? (
        <section className="card" aria-labelledby="actions-title">
          <h2 id="actions-title">Change it</h2>
          {confirm === 'cancel' ? (
            <form action={cancelCampaignAction} className={styles.actions}>
              <input type="hidden" name="campaignId" value={campaign.id} />
              <p>Cancel “{campaign.name}”? It will not be sent, and it cannot be scheduled again.</p>
              <button type="submit" className="button-danger">
                Yes, cancel the campaign
              </button>
              <Link href={`/campaigns/${campaign.id}`}>No, keep it</Link>
            </form>
          ) : (
            <div className={styles.actions}>
              <Link href={`/campaigns/${campaign.id}/edit`} className="button">
                Edit
              </Link>
              <Link href={`/campaigns/${campaign.id}?confirm=cancel`} className="button-danger">
                Cancel campaign…
              </Link>
            </div>
          )}
        </section>
      ) : null}
    </>
  )
}
