import { WEBHOOK_EVENT_TYPES, type WebhookEndpointView } from '@fairlane/core'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { authorize } from '@/server/auth/session'
import { createWebhookAction } from './actions'
import { EndpointStatus, failingDisabled } from './endpoint-status'
import { FailingWebhooksBanner } from './failing-banner'
import { webhookUseCases } from './use-cases'
import { WebhookForm } from './webhook-form'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Webhooks' }

type SearchParams = Promise<{ notice?: string }>

const ENDPOINT_COLUMNS: DataColumn<WebhookEndpointView>[] = [
  {
    header: 'URL',
    rowHeader: true,
    cell: (endpoint) => (
      <>
        <Link href={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
        {endpoint.description ? <div className="muted">{endpoint.description}</div> : null}
      </>
    ),
  },
  { header: 'Events', cell: (endpoint) => endpoint.events.join(', ') },
  { header: 'Status', cell: (endpoint) => <EndpointStatus endpoint={endpoint} />, testId: 'webhook-status' },
  {
    header: 'Last success',
    cell: (endpoint) => <LocalTime value={endpoint.lastSuccessAt} empty="Never" />,
  },
]

/** The tenant's webhook endpoints: add one (its secret shown once), see which are on and healthy. */
export default async function WebhooksPage({ searchParams }: { searchParams: SearchParams }) {
  const { session } = await authorize('webhooks.manage')
  const { notice } = await searchParams
  const endpoints = await webhookUseCases().list({ tenantId: session.tenantId })
  return (
    <>
      <div className="page-header">
        <h1>Webhooks</h1>
      </div>
      <FailingWebhooksBanner endpoints={failingDisabled(endpoints)} />
      <p className="muted">
        Fairlane POSTs your events (sent, bounced, complained, opened, clicked…) to your endpoints as JSON,
        signed with the Standard Webhooks scheme: verify them with the libraries of Svix or Resend. A failed
        delivery is retried for about a day.
      </p>
      {notice === 'deleted' ? (
        <p className="notice" role="status">
          The endpoint was deleted, with its delivery log.
        </p>
      ) : null}
      <section className="card" aria-labelledby="your-webhooks">
        <h2 id="your-webhooks">Your endpoints</h2>
        <DataTable
          label="Your webhook endpoints"
          columns={ENDPOINT_COLUMNS}
          rows={endpoints}
          rowKey={(endpoint) => endpoint.id}
          rowData={(endpoint) => ({ 'data-webhook-id': endpoint.id })}
          empty={<p className="muted">No endpoints yet.</p>}
        />
      </section>
      <section className="card" aria-labelledby="add-webhook">
        <h2 id="add-webhook">Add an endpoint</h2>
        <WebhookForm
          action={createWebhookAction}
          initial={{ url: '', description: '', events: [] }}
          eventTypes={WEBHOOK_EVENT_TYPES}
        />
      </section>
    </>
  )
}
