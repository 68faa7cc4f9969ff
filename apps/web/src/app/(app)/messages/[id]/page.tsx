import { mailDomain } from '@fairlane/config'
import { DELIVERY_ERROR_REASONS } from '@fairlane/core/delivery'
import { listMessageEvents } from '@fairlane/db/queries/message-events'
import { findMessageDetail } from '@fairlane/db/queries/messages-read'
import { messageIdFor } from '@fairlane/mail/message-id'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { type AttachmentListing, listMessageAttachments } from '@/server/messages/message-attachments'
import { CancelMessageButton } from '../cancel-button'
import { EventTimeline } from './event-timeline'

export const metadata: Metadata = { title: 'Message' }

/**
 * One message's story: where it stands, what happened to it and when (its events, with the receiving
 * server's reply to the accepted send and a bounce's diagnostic), the headers it went out with, and
 * its content while the retention keeps it. A failure's raw SMTP reply is not shown (it can name
 * relay hosts): the classified reason is, as the API gives it.
 */
const NOTICES: Record<string, string> = {
  cancelled: 'Cancelled: this message will not be sent.',
  'not-cancellable': 'Too late to cancel: this message is being sent or has been sent.',
}

export default async function MessagePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<Record<string, string | string[] | undefined>>
}) {
  const session = await requireTenantSession()
  const { id } = await params
  const { notice } = await searchParams
  const noticeText = typeof notice === 'string' ? NOTICES[notice] : undefined
  const { database, config } = container()
  // Another tenant's id reads as missing: a 404, never a hint that it exists.
  const query = { tenantId: session.tenantId, messageId: id }
  const [message, events, attachments] = isUuid(id)
    ? await Promise.all([
        findMessageDetail(database.db, query),
        listMessageEvents(database.db, query),
        listMessageAttachments(database.db, query),
      ])
    : [null, [], []]
  if (!message) notFound()
  const retentionDays =
    message.lane === 'critical'
      ? config.MESSAGE_BODY_RETENTION_DAYS_CRITICAL
      : config.MESSAGE_BODY_RETENTION_DAYS
  const back = message.campaignId ? `/campaigns/${message.campaignId}` : '/messages'
  return (
    <>
      <div className="page-header">
        <h1>{message.toAddress}</h1>
        <Link href={back}>{message.campaignId ? 'Back to the campaign' : 'All messages'}</Link>
      </div>
      {noticeText ? (
        <p className="notice" role="status" data-testid="message-notice">
          {noticeText}
        </p>
      ) : null}
      <section className="card" aria-labelledby="status-title">
        <h2 id="status-title">Status</h2>
        <dl className="details">
          <dt>Status</dt>
          <dd data-testid="message-status">
            <StatusBadge status={message.status} />
            {message.status === 'scheduled' && message.sendAt ? (
              <span data-testid="scheduled-for">
                {' '}
                scheduled for <LocalTime value={message.sendAt} />{' '}
                <CancelMessageButton messageId={message.id} back="page" />
              </span>
            ) : null}
          </dd>
          <dt>Lane</dt>
          <dd>{message.lane}</dd>
          <dt>Attempts</dt>
          <dd>{message.attempts}</dd>
          <dt>Last error</dt>
          <dd data-testid="message-error">
            {message.lastErrorCode ? (
              <>
                {DELIVERY_ERROR_REASONS[message.lastErrorCode]}{' '}
                <code className="muted">{message.lastErrorCode}</code>
              </>
            ) : (
              <span className="muted">none</span>
            )}
          </dd>
          <dt>Sent as</dt>
          <dd>
            {message.campaignId ? (
              <>
                campaign{' '}
                <Link href={`/campaigns/${message.campaignId}`}>{message.campaignName ?? 'campaign'}</Link>
              </>
            ) : message.template ? (
              <>
                template <code>{message.template}</code>
                {message.templateVersion !== null ? ` (version ${message.templateVersion})` : ''}
              </>
            ) : (
              'your own content'
            )}
          </dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="story-title">
        <h2 id="story-title">What happened</h2>
        <EventTimeline message={message} events={events} retentionDays={config.EVENT_RETENTION_DAYS} />
      </section>
      <section className="card" aria-labelledby="headers-title">
        <h2 id="headers-title">Headers</h2>
        <dl className="details" data-testid="message-headers">
          <dt>From</dt>
          <dd>{config.MAIL_FROM}</dd>
          <dt>To</dt>
          <dd>{message.toAddress}</dd>
          <dt>Subject</dt>
          <dd>{message.subject ?? <span className="muted">—</span>}</dd>
          <dt>Message-ID</dt>
          <dd>
            <code>{messageIdFor(message.id, mailDomain(config))}</code>
          </dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="content-title">
        <h2 id="content-title">Content</h2>
        {message.campaignId && !message.html && !message.text ? (
          <p className="muted" data-testid="campaign-content">
            Campaign mail is rendered for each recipient when it is sent, from the campaign’s subject and body
            with this contact’s name and attributes; it is not stored per message. The content is on{' '}
            <Link href={`/campaigns/${message.campaignId}`}>the campaign</Link>.
          </p>
        ) : message.bodyRemovedAt ? (
          <p className="muted" data-testid="body-removed">
            Body removed after {retentionDays} days: the retention keeps the content of{' '}
            {message.lane === 'critical' ? 'login codes and resets' : 'this kind of mail'} that long.
          </p>
        ) : (
          <>
            {message.html ? (
              <iframe
                title="Message content"
                className="message-frame"
                // No allow-scripts: nothing in the mail's HTML runs in the app.
                sandbox="allow-same-origin"
                srcDoc={message.html}
                data-testid="message-html"
              />
            ) : null}
            {message.text ? (
              <details open={!message.html}>
                <summary>Text part</summary>
                <pre className="code-block" data-testid="message-text">
                  {message.text}
                </pre>
              </details>
            ) : null}
            {!message.html && !message.text && attachments.length === 0 ? (
              <p className="muted">Sent as it was submitted over SMTP.</p>
            ) : null}
          </>
        )}
      </section>
      {attachments.length > 0 ? (
        <section className="card" aria-labelledby="attachments-title">
          <h2 id="attachments-title">Attachments</h2>
          <DataTable
            label="Attachments"
            testId="message-attachments"
            columns={ATTACHMENT_COLUMNS}
            rows={attachments.map((attachment, position) => ({ ...attachment, position }))}
            rowKey={(row) => row.position}
          />
        </section>
      ) : null}
    </>
  )
}

const ATTACHMENT_COLUMNS: DataColumn<AttachmentListing & { position: number }>[] = [
  { header: 'File', cell: (row) => row.filename, rowHeader: true },
  { header: 'Type', cell: (row) => <code>{row.contentType}</code> },
  { header: 'Size', cell: (row) => formatSize(row.sizeBytes), align: 'end' },
]

/** 1,234 bytes, 12.1 KB, 3.4 MB: enough to tell an invoice from a photo. */
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
