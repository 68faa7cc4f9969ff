import { DELIVERY_ERROR_REASONS } from '@fairlane/core/delivery'
import type { MessageLogEntry } from '@fairlane/db/queries/messages-log'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import { CancelMessageButton } from './cancel-button'

function messageColumns(
  bodyRetentionDays: (lane: MessageLogEntry['lane']) => number,
): DataColumn<MessageLogEntry>[] {
  return [
    {
      header: 'Recipient',
      cell: (message) => <Link href={`/messages/${message.id}`}>{message.toAddress}</Link>,
    },
    {
      header: 'Template',
      cell: (message) => (
        <>
          {message.template ?? <span className="muted">custom: {message.subject}</span>}
          {message.bodyRemovedAt ? (
            <div className="muted" data-testid="body-removed">
              body removed after {bodyRetentionDays(message.lane)} days
            </div>
          ) : null}
        </>
      ),
    },
    { header: 'Lane', cell: (message) => message.lane },
    { header: 'Status', cell: (message) => <StatusBadge status={message.status} /> },
    { header: 'Attempts', cell: (message) => message.attempts },
    {
      header: 'Last error',
      cell: (message) =>
        message.lastErrorCode ? (
          <span data-testid="last-error" title={message.lastErrorCode}>
            {DELIVERY_ERROR_REASONS[message.lastErrorCode]}{' '}
            <code className="muted">{message.lastErrorCode}</code>
          </span>
        ) : (
          <span className="muted">—</span>
        ),
    },
    { header: 'Created', cell: (message) => <LocalTime value={message.createdAt} /> },
    {
      header: 'Sent',
      cell: (message) =>
        message.status === 'scheduled' && message.sendAt ? (
          <span data-testid="scheduled-for">
            scheduled for <LocalTime value={message.sendAt} />{' '}
            <CancelMessageButton messageId={message.id} back="list" />
          </span>
        ) : (
          <LocalTime value={message.sentAt} />
        ),
    },
  ]
}

/**
 * `bodyRetentionDays`: MESSAGE_BODY_RETENTION_DAYS per lane, so a message whose body the nightly
 * cleanup removed says after how long, instead of looking as if it never had one.
 */
export function MessageTable({
  messages,
  bodyRetentionDays,
  label = 'Messages',
}: {
  messages: MessageLogEntry[]
  bodyRetentionDays: (lane: MessageLogEntry['lane']) => number
  /** The table's accessible name. */
  label?: string
}) {
  return (
    <DataTable
      label={label}
      columns={messageColumns(bodyRetentionDays)}
      rows={messages}
      rowKey={(m) => m.id}
    />
  )
}
