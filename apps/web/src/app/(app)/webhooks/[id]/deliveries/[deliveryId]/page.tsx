import type { StoredWebhookAttempt } from '@fairlane/core'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import { authorize } from '@/server/auth/session'
import { isUuid } from '@/server/http/ids'
import { replayDeliveriesAction } from '../../../actions'
import { webhookUseCases } from '../../../use-cases'
import styles from '../../../webhooks.module.css'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Webhook delivery' }

type Params = Promise<{ id: string; deliveryId: string }>

const ATTEMPT_COLUMNS: DataColumn<StoredWebhookAttempt>[] = [
  { header: 'When', cell: (attempt) => <LocalTime value={attempt.attemptedAt} seconds /> },
  { header: 'Took', cell: (attempt) => `${attempt.durationMs.toLocaleString('en')} ms`, align: 'end' },
  {
    header: 'Status',
    cell: (attempt) =>
      attempt.statusCode === null ? <span className="muted">—</span> : <code>{attempt.statusCode}</code>,
  },
  { header: 'Error', cell: (attempt) => attempt.error ?? <span className="muted">—</span> },
  {
    header: 'Response',
    cell: (attempt) =>
      attempt.responseExcerpt ? (
        <pre className={styles.excerpt}>{attempt.responseExcerpt}</pre>
      ) : (
        <span className="muted">—</span>
      ),
  },
]

/** One delivery: what was sent (the body), its status, and every attempt with what came back. */
export default async function WebhookDeliveryPage({ params }: { params: Params }) {
  const { session } = await authorize('webhooks.manage')
  const { id, deliveryId } = await params
  if (!isUuid(id) || !isUuid(deliveryId)) notFound()
  const delivery = await webhookUseCases().delivery({
    tenantId: session.tenantId,
    endpointId: id,
    deliveryId,
  })
  if (!delivery) notFound()
  return (
    <>
      <p>
        <Link href={`/webhooks/${id}#deliveries`}>← Delivery log</Link>
      </p>
      <div className="page-header">
        <h1>
          <code>{delivery.eventType}</code> delivery
        </h1>
        <form action={replayDeliveriesAction}>
          <input type="hidden" name="endpointId" value={id} />
          <input type="hidden" name="ids" value={delivery.id} />
          <button type="submit" className="button-secondary">
            Replay
          </button>
        </form>
      </div>
      <dl className="stats">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={delivery.status} />
          </dd>
        </div>
        <div>
          <dt>webhook-id</dt>
          <dd>
            <code>{delivery.webhookId}</code>
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{delivery.attempts}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <LocalTime value={delivery.createdAt} seconds />
          </dd>
        </div>
      </dl>
      <section className="card" aria-labelledby="attempts">
        <h2 id="attempts">Attempts</h2>
        <DataTable
          label="Attempts"
          columns={ATTEMPT_COLUMNS}
          rows={delivery.attemptLog}
          rowKey={(attempt) => attempt.id}
          empty={<p className="muted">No attempt yet.</p>}
        />
      </section>
      <section className="card" aria-labelledby="payload">
        <h2 id="payload">Body sent</h2>
        <pre className={`code-block ${styles.payload}`} data-testid="delivery-payload">
          {JSON.stringify(delivery.payload, null, 2)}
        </pre>
      </section>
    </>
  )
}
