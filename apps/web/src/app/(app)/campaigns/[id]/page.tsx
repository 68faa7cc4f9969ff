import {
  CANCELLABLE_CAMPAIGN_STATUSES,
  EDITABLE_CAMPAIGN_STATUSES,
  isCancellableCampaign,
  isEditableCampaign,
  MESSAGE_STATUSES,
  type MessageStatus,
} from '@fairlane/core'
import { countAudience } from '@fairlane/db/queries/audience'
import { findCampaign } from '@fairlane/db/queries/campaigns'
import { listMessageLog } from '@fairlane/db/queries/messages-log'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { loadCampaignEngagement } from '@/server/campaigns/campaign-engagement'
import { loadCampaignProgress } from '@/server/campaigns/campaign-progress'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { getReaderTimeZone } from '@/server/reader-time-zone'
import { MessageTable } from '../../messages/message-table'
import { cancelCampaignAction, duplicateCampaignAction } from '../actions'
import styles from '../campaigns.module.css'
import { scheduleText } from '../schedule-text'
import { Engagement } from './engagement'
import { LiveCampaignProvider, WhileStatus } from './live-campaign'
import { LiveCounts } from './live-counts'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Campaign' }

type Search = {
  notice?: string
  confirm?: string
  held?: string
  went?: string
  /** The recipients table: part of an address, a status, and the keyset cursor. */
  q?: string
  status?: string
  after?: string
}

const RECIPIENTS_PAGE = 50

const NOTICES: Record<string, string> = {
  'not-cancellable': 'This campaign has already been sent; there was nothing left to cancel.',
  'not-editable': 'Only draft and scheduled campaigns can be edited.',
}

const count = (value: string | undefined) => Math.max(0, Number.parseInt(value ?? '', 10) || 0)

function noticeText(search: Search): string | undefined {
  if (search.notice !== 'cancelled') return search.notice ? NOTICES[search.notice] : undefined
  const held = count(search.held)
  const went = count(search.went)
  if (held === 0 && went === 0) return 'The campaign is cancelled. Nothing will be sent.'
  return `Cancelled: ${held.toLocaleString('en')} not sent, ${went.toLocaleString('en')} already went. Any being handed over right now still go; the counts below keep up.`
}

export default async function CampaignPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<Search>
}) {
  const session = await requireTenantSession()
  const { id } = await params
  const search = await searchParams
  const { db } = container().database
  // Another tenant's id reads as missing: a 404, never a hint that it exists.
  const campaign = isUuid(id) ? await findCampaign(db, { tenantId: session.tenantId, campaignId: id }) : null
  if (!campaign) notFound()
  const recipientQuery = typeof search.q === 'string' ? search.q.trim().slice(0, 200) : ''
  const recipientStatus =
    typeof search.status === 'string' && (MESSAGE_STATUSES as readonly string[]).includes(search.status)
      ? (search.status as MessageStatus)
      : undefined
  const [progress, audience, recipientRows, engagement] = await Promise.all([
    loadCampaignProgress(db, { tenantId: session.tenantId, campaign, now: new Date() }),
    countAudience(db, { tenantId: session.tenantId, listId: campaign.listId, segmentId: campaign.segmentId }),
    listMessageLog(db, {
      tenantId: session.tenantId,
      campaignId: campaign.id,
      status: recipientStatus,
      recipient: recipientQuery || undefined,
      after: typeof search.after === 'string' && isUuid(search.after) ? search.after : undefined,
      limit: RECIPIENTS_PAGE,
    }),
    loadCampaignEngagement(db, {
      tenantId: session.tenantId,
      campaignId: campaign.id,
      timeZone: (await getReaderTimeZone()).zone,
    }),
  ])
  const recipients = recipientRows.slice(0, RECIPIENTS_PAGE)
  const lastRecipient = recipients.at(-1)
  const recipientsHref = (after?: string) => {
    const query = new URLSearchParams()
    if (recipientQuery) query.set('q', recipientQuery)
    if (recipientStatus) query.set('status', recipientStatus)
    if (after) query.set('after', after)
    const text = query.toString()
    return `/campaigns/${campaign.id}${text ? `?${text}` : ''}#recipients-title`
  }
  const { config } = container()
  const when = scheduleText(campaign)
  const editable = isEditableCampaign(campaign.status)
  const cancellable = isCancellableCampaign(campaign.status)
  const notice = noticeText(search)
  // The audience is resolved at send time: empty now is worth a warning, not a refusal.
  const emptyAudience = campaign.status === 'scheduled' && audience.recipients === 0
  return (
    <LiveCampaignProvider campaignId={campaign.id} initial={progress}>
      <div className="page-header">
        <h1>{campaign.name}</h1>
        <Link href="/campaigns">All campaigns</Link>
      </div>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {emptyAudience ? (
        <p className={styles.warning} role="status" data-testid="empty-audience-warning">
          The audience is empty now ({audience.unsubscribed} unsubscribed and {audience.suppressed} suppressed
          left out). It is resolved at send time: contacts added before then get the campaign; if it is still
          empty then, the campaign ends as sent with no recipients.
        </p>
      ) : null}
      <section className="card" aria-labelledby="progress-title">
        <h2 id="progress-title">Progress</h2>
        <LiveCounts />
      </section>
      <section className="card" aria-labelledby="engagement-title">
        <h2 id="engagement-title">Engagement</h2>
        <Engagement
          engagement={engagement}
          tracking={{ opens: campaign.trackOpens, clicks: campaign.trackClicks }}
        />
      </section>
      <section className="card" aria-labelledby="details-title">
        <h2 id="details-title">Details</h2>
        <dl className={styles.details}>
          <dt>From</dt>
          <dd data-testid="campaign-from">{campaign.fromAddress ?? 'Your default sender'}</dd>
          {campaign.replyTo ? (
            <>
              <dt>Reply-To</dt>
              <dd>{campaign.replyTo}</dd>
            </>
          ) : null}
          <dt>Subject</dt>
          <dd>{campaign.subject}</dd>
          <dt>Audience</dt>
          <dd data-testid="campaign-audience">
            {campaign.segmentName
              ? `Segment: ${campaign.segmentName}`
              : campaign.listName
                ? `List: ${campaign.listName}`
                : 'All subscribed contacts'}{' '}
            — {audience.recipients} recipients now ({audience.unsubscribed} unsubscribed and{' '}
            {audience.suppressed} suppressed left out)
          </dd>
          <dt>Send time (local)</dt>
          <dd data-testid="send-local">{when?.local || '—'}</dd>
          <dt>Send time (UTC)</dt>
          <dd data-testid="send-utc">{when?.utc ?? '—'}</dd>
          <dt>Send time (your zone)</dt>
          <dd data-testid="send-reader">
            <LocalTime value={campaign.sendAt} />
          </dd>
        </dl>
      </section>
      {cancellable ? (
        // Shown while the live status still allows it: a campaign that reaches `sent` with the page
        // open loses its actions then, not at the next reload.
        <WhileStatus statuses={CANCELLABLE_CAMPAIGN_STATUSES}>
          <section className="card" aria-labelledby="actions-title">
            <h2 id="actions-title">{editable ? 'Change it' : 'Stop it'}</h2>
            {search.confirm === 'cancel' ? (
              <form action={cancelCampaignAction} className={styles.actions}>
                <input type="hidden" name="campaignId" value={campaign.id} />
                <p>
                  {editable
                    ? `Cancel “${campaign.name}”? It will not be sent, and it cannot be scheduled again.`
                    : `Cancel “${campaign.name}” while it is sending? Messages not yet sent are held back; those already sent cannot be recalled. It cannot be resumed.`}
                </p>
                <button type="submit" className="button-danger">
                  Yes, cancel the campaign
                </button>
                <Link href={`/campaigns/${campaign.id}`}>No, keep it</Link>
              </form>
            ) : (
              <div className={styles.actions}>
                {editable ? (
                  <WhileStatus statuses={EDITABLE_CAMPAIGN_STATUSES}>
                    <Link href={`/campaigns/${campaign.id}/edit`} className="button">
                      Edit
                    </Link>
                  </WhileStatus>
                ) : null}
                <Link href={`/campaigns/${campaign.id}?confirm=cancel`} className="button-danger">
                  Cancel campaign…
                </Link>
              </div>
            )}
          </section>
        </WhileStatus>
      ) : null}
      <section className="card" aria-labelledby="copy-title">
        <h2 id="copy-title">Copy it</h2>
        <form action={duplicateCampaignAction} className={styles.actions}>
          <input type="hidden" name="campaignId" value={campaign.id} />
          <p>A new draft with this campaign’s content and audience; you choose when it goes.</p>
          <button type="submit" className="button-secondary">
            Duplicate
          </button>
        </form>
      </section>
      <section className="card" aria-labelledby="recipients-title">
        <h2 id="recipients-title">Recipients</h2>
        <search>
          <form method="get" action={`/campaigns/${campaign.id}`} className="form-inline">
            <div className="field">
              <label htmlFor="recipient-search">Address contains</label>
              <input
                id="recipient-search"
                name="q"
                type="search"
                defaultValue={recipientQuery}
                maxLength={200}
              />
            </div>
            <div className="field">
              <label htmlFor="recipient-status">Status</label>
              <select id="recipient-status" name="status" defaultValue={recipientStatus ?? ''}>
                <option value="">Any</option>
                {MESSAGE_STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {status}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" className="button-secondary">
              Filter
            </button>
          </form>
        </search>
        {recipients.length === 0 ? (
          <p className="muted">
            {recipientQuery || recipientStatus
              ? 'No recipient matches this filter.'
              : 'No messages yet: they are created when the campaign is dispatched.'}
          </p>
        ) : (
          <MessageTable
            label="Recipients"
            messages={recipients}
            bodyRetentionDays={() => config.MESSAGE_BODY_RETENTION_DAYS}
          />
        )}
        {recipientRows.length > RECIPIENTS_PAGE && lastRecipient ? (
          <p>
            <Link href={recipientsHref(lastRecipient.id)}>Next recipients</Link>
          </p>
        ) : null}
      </section>
    </LiveCampaignProvider>
  )
}
