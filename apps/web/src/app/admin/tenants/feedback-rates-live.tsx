'use client'

import { type DataColumn, DataTable } from '@/components/data-table'
import type { FeedbackRatesJson, TenantFeedbackView } from '@/server/api/admin/feedback-rates'
import { formatCount } from '../format'
import { usePolling } from '../use-polling'

/** The counts cover a day of events: a minute between reads is fresh enough and keeps the query rare. */
const FEEDBACK_POLL_MS = 60_000

const percent = (rate: number | null, digits: number) =>
  rate === null ? '—' : `${(rate * 100).toFixed(digits)} %`

function verdict(tenant: TenantFeedbackView, thresholds: FeedbackRatesJson['thresholds']) {
  if (tenant.flags.length > 0) {
    const what = tenant.flags.map((flag) =>
      flag === 'bounces'
        ? `over ${percent(thresholds.bounceRate, 0)} bounces`
        : `over ${percent(thresholds.complaintRate, 1)} complaints`,
    )
    return <span className="badge badge-failed">Flagged: {what.join(' and ')}</span>
  }
  if (tenant.sent < thresholds.minSent) {
    return (
      <span className="muted">Too little mail to judge (under {formatCount(thresholds.minSent)} sent)</span>
    )
  }
  return <span className="badge badge-active">Within limits</span>
}

function feedbackColumns(thresholds: FeedbackRatesJson['thresholds']): DataColumn<TenantFeedbackView>[] {
  return [
    { header: 'Tenant', rowHeader: true, cell: (tenant) => tenant.name },
    { header: 'Sent', cell: (tenant) => formatCount(tenant.sent) },
    {
      header: 'Hard bounces',
      cell: (tenant) => (
        <>
          {percent(tenant.bounceRate, 2)} <span className="muted">({formatCount(tenant.hardBounces)})</span>
        </>
      ),
    },
    {
      header: 'Complaints',
      cell: (tenant) => (
        <>
          {percent(tenant.complaintRate, 3)} <span className="muted">({formatCount(tenant.complaints)})</span>
        </>
      ),
    },
    { header: 'Status', cell: (tenant) => verdict(tenant, thresholds) },
  ]
}

/**
 * Bounce and complaint rates per tenant over the last 24 hours (hard bounces / sent, complaints /
 * sent), flagged above the thresholds mailbox providers act on, the worst first.
 */
export function FeedbackRatesLive() {
  const { data, error } = usePolling<FeedbackRatesJson>('/api/admin/feedback-rates', FEEDBACK_POLL_MS)
  const flagged = data?.tenants.filter((tenant) => tenant.flags.length > 0).length ?? 0
  return (
    <section className="card" aria-labelledby="feedback-title" data-testid="feedback-rates">
      <h2 id="feedback-title">Bounces and complaints, last 24 hours</h2>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {data ? (
        <>
          <p className="muted">
            Hard bounces and complaints over mail sent in the last {data.windowHours} hours. A tenant with at
            least {formatCount(data.thresholds.minSent)} sent is flagged above{' '}
            {percent(data.thresholds.bounceRate, 0)} bounces or {percent(data.thresholds.complaintRate, 1)}{' '}
            complaints, where mailbox providers start to throttle or block.{' '}
            <strong role="status">
              {flagged === 0 ? 'No tenant is flagged.' : `${formatCount(flagged)} flagged.`}
            </strong>
          </p>
          <DataTable
            label="Bounce and complaint rates per tenant"
            columns={feedbackColumns(data.thresholds)}
            rows={data.tenants}
            rowKey={(tenant) => tenant.id}
            rowData={(tenant) => ({ 'data-tenant': tenant.id })}
            empty={<p>No tenant sent mail or had bounces or complaints in this window.</p>}
          />
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  )
}
