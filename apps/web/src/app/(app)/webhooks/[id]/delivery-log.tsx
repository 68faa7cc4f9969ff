import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryPage, type WebhookDeliveryView } from '@fairlane/core'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import { replayDeliveriesAction } from '../actions'
import styles from '../webhooks.module.css'

const BULK_FORM = 'replay-selected'
const rowForm = (id: string) => `replay-${id}`
const EXCERPT_CHARS = 300

function logHref(endpointId: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value)
  const text = query.toString()
  return `/webhooks/${endpointId}${text ? `?${text}` : ''}#deliveries`
}

function lastAnswer(delivery: WebhookDeliveryView) {
  if (delivery.lastStatusCode === null && delivery.lastError === null) return <span className="muted">—</span>
  return (
    <>
      {delivery.lastStatusCode !== null ? <code>{delivery.lastStatusCode}</code> : null}
      {delivery.lastError ? <div className="muted">{delivery.lastError}</div> : null}
    </>
  )
}

function columns(endpointId: string): DataColumn<WebhookDeliveryView>[] {
  return [
    {
      header: <span className="visually-hidden">Select</span>,
      cell: (delivery) => (
        <input
          type="checkbox"
          name="ids"
          value={delivery.id}
          form={BULK_FORM}
          aria-label={`Select the ${delivery.eventType} delivery ${delivery.webhookId}`}
        />
      ),
    },
    {
      header: 'Event',
      cell: (delivery) => <code>{delivery.eventType}</code>,
      testId: 'delivery-event',
      className: styles.nowrap,
    },
    { header: 'webhook-id', cell: (delivery) => <code>{delivery.webhookId}</code> },
    {
      header: 'Status',
      cell: (delivery) => <StatusBadge status={delivery.status} />,
      testId: 'delivery-status',
      className: styles.nowrap,
    },
    {
      header: 'Attempts',
      cell: (delivery) => delivery.attempts,
      align: 'end',
      testId: 'delivery-attempts',
      headerClassName: styles.nowrap,
    },
    { header: 'Last answer', cell: lastAnswer },
    {
      header: 'Time',
      cell: (delivery) => (
        <>
          <LocalTime value={delivery.createdAt} seconds />
          {delivery.status === 'pending' && delivery.attempts > 0 && delivery.nextAttemptAt ? (
            <div className="muted">
              next try <LocalTime value={delivery.nextAttemptAt} seconds />
            </div>
          ) : null}
        </>
      ),
    },
    {
      header: 'Response',
      cell: (delivery) =>
        delivery.lastResponse ? (
          <pre className={styles.excerpt}>{delivery.lastResponse.slice(0, EXCERPT_CHARS)}</pre>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      header: <span className="visually-hidden">Actions</span>,
      cell: (delivery) => (
        <div className={styles.actions}>
          <Link href={`/webhooks/${endpointId}/deliveries/${delivery.id}`}>Attempts</Link>
          <button type="submit" form={rowForm(delivery.id)} className="link-button">
            Replay
          </button>
        </div>
      ),
    },
  ]
}

/**
 * An endpoint's delivery log, newest first: filter by status, replay the checked deliveries or one
 * (a new attempt with the same webhook-id), open one's attempts. The checkboxes and row buttons belong
 * to forms outside the table (`form=`), since forms cannot nest.
 */
export function DeliveryLog(props: {
  endpointId: string
  status: string
  cursor: string
  page: WebhookDeliveryPage
}) {
  const { endpointId, status, page } = props
  return (
    <>
      <nav aria-label="Filter deliveries by status" className="pager">
        <Link href={logHref(endpointId, {})} aria-current={status === '' ? 'page' : undefined}>
          All
        </Link>
        {WEBHOOK_DELIVERY_STATUSES.map((known) => (
          <Link
            key={known}
            href={logHref(endpointId, { status: known })}
            aria-current={status === known ? 'page' : undefined}
          >
            {known[0]?.toUpperCase()}
            {known.slice(1)}
          </Link>
        ))}
      </nav>
      <form id={BULK_FORM} action={replayDeliveriesAction} className="form-inline">
        <input type="hidden" name="endpointId" value={endpointId} />
        <input type="hidden" name="status" value={status} />
        <button type="submit" className="button-secondary">
          Replay selected
        </button>
      </form>
      <DataTable
        label="Deliveries"
        testId="delivery-log"
        className={styles.log}
        wrapClassName={styles.logWrap}
        columns={columns(endpointId)}
        rows={page.items}
        rowKey={(delivery) => delivery.id}
        rowData={(delivery) => ({ 'data-delivery-id': delivery.id, 'data-status': delivery.status })}
        empty={<p className="muted">No deliveries{status ? ` ${status}` : ''} yet.</p>}
      />
      {page.items.map((delivery) => (
        <form key={delivery.id} id={rowForm(delivery.id)} action={replayDeliveriesAction} hidden>
          <input type="hidden" name="endpointId" value={endpointId} />
          <input type="hidden" name="status" value={status} />
          <input type="hidden" name="ids" value={delivery.id} />
        </form>
      ))}
      <nav aria-label="Delivery log pages" className="pager">
        {props.cursor ? <Link href={logHref(endpointId, { status })}>Newest</Link> : null}
        {page.nextCursor ? (
          <Link href={logHref(endpointId, { status, cursor: page.nextCursor })}>Older</Link>
        ) : null}
      </nav>
    </>
  )
}
