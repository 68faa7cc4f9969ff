import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryPage } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { LocalTime } from '@/components/local-time'
import { authorize } from '@/server/auth/session'
import { isUuid } from '@/server/http/ids'
import {
  deleteWebhookAction,
  rotateWebhookSecretAction,
  sendTestEventAction,
  setWebhookEnabledAction,
  updateWebhookAction,
} from '../actions'
import { EndpointActionForm } from '../endpoint-action-form'
import { EndpointStatus } from '../endpoint-status'
import { FailingWebhooksBanner } from '../failing-banner'
import { webhookUseCases } from '../use-cases'
import { WebhookForm } from '../webhook-form'
import styles from '../webhooks.module.css'
import { DeliveryLog } from './delivery-log'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Webhook endpoint' }

type Params = Promise<{ id: string }>
type Search = Promise<{ notice?: string; status?: string; cursor?: string; count?: string }>

const PAGE_SIZE = 50

const NOTICES: Record<string, (count: number) => string> = {
  'test-sent': () =>
    'A test event is on its way: it appears in the log below, pending until the receiver answers.',
  enabled: () => 'The endpoint is enabled: waiting and new events are sent to it.',
  disabled: () => 'The endpoint is disabled: its events wait until you enable it again.',
  replayed: (count) =>
    `${count} ${count === 1 ? 'delivery is' : 'deliveries are'} sent again (same webhook-id).`,
  'none-selected': () => 'Select the deliveries to replay first.',
  'replay-disabled': () => 'The endpoint is disabled; enable it to replay deliveries.',
}

/** One endpoint: its settings, switches, secret rotation, test event and delivery log. */
export default async function WebhookPage({
  params,
  searchParams,
}: {
  params: Params
  searchParams: Search
}) {
  const { session } = await authorize('webhooks.manage')
  const { id } = await params
  if (!isUuid(id)) notFound()
  const search = await searchParams
  const query = { tenantId: session.tenantId, endpointId: id }
  const endpoint = await webhookUseCases().get(query)
  if (!endpoint) notFound()
  const status = WEBHOOK_DELIVERY_STATUSES.find((known) => known === search.status) ?? ''
  const cursor = typeof search.cursor === 'string' ? search.cursor.slice(0, 100) : ''
  const filter: Record<string, string> = { limit: String(PAGE_SIZE), ...(status ? { status } : {}) }
  let page: WebhookDeliveryPage = { items: [] }
  let cursorRefused = false
  try {
    page = await webhookUseCases().deliveries({
      ...query,
      query: { ...filter, ...(cursor ? { cursor } : {}) },
    })
  } catch (error) {
    // The status is one of the known ones by now: only an old or edited cursor can be refused.
    if (!isAppError(error) || error.code !== 'validation_failed') throw error
    cursorRefused = true
    page = await webhookUseCases().deliveries({ ...query, query: filter })
  }
  const notice = search.notice
    ? NOTICES[search.notice]?.(Number.parseInt(search.count ?? '0', 10) || 0)
    : undefined
  const failing = !endpoint.enabled && endpoint.disabledReason === 'failing' ? [endpoint] : []
  return (
    <>
      <p>
        <Link href="/webhooks">← Webhooks</Link>
      </p>
      <div className="page-header">
        <h1 className={styles.secret}>{endpoint.url}</h1>
      </div>
      <FailingWebhooksBanner endpoints={failing} />
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <dl className="stats">
        <div>
          <dt>Status</dt>
          <dd>
            <EndpointStatus endpoint={endpoint} />
          </dd>
        </div>
        <div>
          <dt>Last success</dt>
          <dd>
            <LocalTime value={endpoint.lastSuccessAt} empty="Never" />
          </dd>
        </div>
        <div>
          <dt>Added</dt>
          <dd>
            <LocalTime value={endpoint.createdAt} />
          </dd>
        </div>
      </dl>
      {endpoint.previousSecretExpiresAt ? (
        <p className="muted">
          The previous secret also signs requests until <LocalTime value={endpoint.previousSecretExpiresAt} />
          .
        </p>
      ) : null}
      <div className={styles.toolbar}>
        <EndpointActionForm
          endpointId={endpoint.id}
          action={sendTestEventAction}
          label="Send test event"
          pendingLabel="Sending…"
          className="button"
        />
        <EndpointActionForm
          endpointId={endpoint.id}
          action={setWebhookEnabledAction}
          fields={{ enabled: String(!endpoint.enabled) }}
          label={endpoint.enabled ? 'Disable' : 'Enable'}
          pendingLabel={endpoint.enabled ? 'Disabling…' : 'Enabling…'}
        />
        <EndpointActionForm
          endpointId={endpoint.id}
          action={rotateWebhookSecretAction}
          label="Rotate secret"
          pendingLabel="Rotating…"
          confirm="Make a new signing secret? The current one keeps working for 24 hours."
        />
        <EndpointActionForm
          endpointId={endpoint.id}
          action={deleteWebhookAction}
          label="Delete"
          pendingLabel="Deleting…"
          className="button-danger"
          confirm="Delete this endpoint and its delivery log? Nothing more is sent to it."
        />
      </div>
      <section className="card" aria-labelledby="deliveries-heading" id="deliveries">
        <h2 id="deliveries-heading">Deliveries</h2>
        {cursorRefused ? (
          <p className="notice" role="status">
            That page link is no longer valid; showing the newest deliveries instead.
          </p>
        ) : null}
        <DeliveryLog
          endpointId={endpoint.id}
          status={status}
          cursor={cursorRefused ? '' : cursor}
          page={page}
        />
      </section>
      <section className="card" aria-labelledby="edit-webhook">
        <h2 id="edit-webhook">Settings</h2>
        <WebhookForm
          action={updateWebhookAction}
          endpointId={endpoint.id}
          initial={{ url: endpoint.url, description: endpoint.description ?? '', events: endpoint.events }}
          eventTypes={WEBHOOK_EVENT_TYPES}
        />
      </section>
    </>
  )
}
