import type { MessageEventView } from '@fairlane/db/queries/message-events'
import type { MessageDetail } from '@fairlane/db/queries/messages-read'
import type { ReactNode } from 'react'
import { LocalTime } from '@/components/local-time'
import { describeEvent } from '@/server/messages/event-story'

/**
 * A message's events, oldest first, each with what it carries (the server's reply, a bounce's status
 * and diagnostic, an error code): rendered as text, so whatever a remote server wrote stays text.
 * A message whose events the retention has deleted (or that predates them) shows the times its row
 * keeps instead.
 */
export function EventTimeline({
  message,
  events,
  retentionDays,
}: {
  message: MessageDetail
  events: MessageEventView[]
  retentionDays: number
}) {
  const removed = message.bodyRemovedAt ? (
    <li data-testid="message-event" data-type="body-removed">
      <LocalTime value={message.bodyRemovedAt} /> — Body removed (retention)
    </li>
  ) : null
  if (events.length === 0)
    return <RowTimes message={message} removed={removed} retentionDays={retentionDays} />
  const now = new Date()
  return (
    <ol className="timeline" data-testid="message-timeline">
      {events.map((event) => {
        const line = describeEvent(event, now)
        return (
          <li key={event.id} data-testid="message-event" data-type={event.type}>
            <LocalTime value={event.at} seconds /> — {line.label}
            {line.facts.length > 0 ? (
              <dl className="event-facts">
                {line.facts.map((fact) => (
                  <div key={fact.name}>
                    <dt>{fact.name}</dt>
                    <dd>
                      <code>{fact.value}</code>
                    </dd>
                  </div>
                ))}
              </dl>
            ) : null}
          </li>
        )
      })}
      {removed}
    </ol>
  )
}

function RowTimes({
  message,
  removed,
  retentionDays,
}: {
  message: MessageDetail
  removed: ReactNode
  retentionDays: number
}) {
  const steps: { label: string; at: Date | null }[] = [
    { label: 'Accepted', at: message.createdAt },
    { label: 'Queued for delivery', at: message.queuedAt },
    { label: 'Accepted by the receiving server', at: message.sentAt },
    { label: 'Failed', at: message.failedAt },
  ]
  return (
    <>
      <ol className="timeline" data-testid="message-timeline">
        {steps
          .filter((step) => step.at !== null)
          .map((step) => (
            <li key={step.label}>
              <LocalTime value={step.at} /> — {step.label}
            </li>
          ))}
        {removed}
      </ol>
      <p className="muted">Events are kept {retentionDays} days; these times are from the message itself.</p>
    </>
  )
}
