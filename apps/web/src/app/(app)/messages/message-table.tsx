import { DELIVERY_ERROR_REASONS } from '@fairlane/core/delivery'
import type { MessageLogEntry } from '@fairlane/db/queries/messages-log'
import Link from 'next/link'
import { DateTime } from '@/components/date-time'
import { StatusBadge } from '@/components/status-badge'

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
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Recipient</th>
            <th scope="col">Template</th>
            <th scope="col">Lane</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last error</th>
            <th scope="col">Created</th>
            <th scope="col">Sent</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((message) => (
            <tr key={message.id}>
              <td>
                <Link href={`/messages/${message.id}`}>{message.toAddress}</Link>
              </td>
              <td>
                {message.template ?? <span className="muted">custom: {message.subject}</span>}
                {message.bodyRemovedAt ? (
                  <div className="muted" data-testid="body-removed">
                    body removed after {bodyRetentionDays(message.lane)} days
                  </div>
                ) : null}
              </td>
              <td>{message.lane}</td>
              <td>
                <StatusBadge status={message.status} />
              </td>
              <td>{message.attempts}</td>
              <td>
                {message.lastErrorCode ? (
                  <span data-testid="last-error" title={message.lastErrorCode}>
                    {DELIVERY_ERROR_REASONS[message.lastErrorCode]}{' '}
                    <code className="muted">{message.lastErrorCode}</code>
                  </span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td>
                <DateTime value={message.createdAt} />
              </td>
              <td>
                <DateTime value={message.sentAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
