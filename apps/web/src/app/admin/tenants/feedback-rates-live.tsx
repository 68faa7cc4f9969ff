'use client'

import type { TenantFeedbackView } from '@/server/api/admin/feedback-rates'
import { formatCount } from '../format'
import { usePolling } from '../use-polling'

interface FeedbackRatesAnswer {
  windowHours: number
  thresholds: { bounceRate: number; complaintRate: number; minSent: number }
  tenants: TenantFeedbackView[]
}

/** The counts cover a day of events: a minute between reads is fresh enough and keeps the query rare. */
const FEEDBACK_POLL_MS = 60_000

const percent = (rate: number | null, digits: number) =>
  rate === null ? '—' : `${(rate * 100).toFixed(digits)} %`

function verdict(tenant: TenantFeedbackView, thresholds: FeedbackRatesAnswer['thresholds']) {
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

/**
 * Bounce and complaint rates per tenant over the last 24 hours (hard bounces / sent, complaints /
 * sent), flagged above the thresholds mailbox providers act on, the worst first.
 */
export function FeedbackRatesLive() {
  const { data, error } = usePolling<FeedbackRatesAnswer>('/api/admin/feedback-rates', FEEDBACK_POLL_MS)
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
          {data.tenants.length === 0 ? (
            <p>No tenant sent mail or had bounces or complaints in this window.</p>
          ) : (
            <div className="table-wrap">
              <table className="table" aria-label="Bounce and complaint rates per tenant">
                <thead>
                  <tr>
                    <th scope="col">Tenant</th>
                    <th scope="col">Sent</th>
                    <th scope="col">Hard bounces</th>
                    <th scope="col">Complaints</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {data.tenants.map((tenant) => (
                    <tr key={tenant.id} data-tenant={tenant.id}>
                      <th scope="row">{tenant.name}</th>
                      <td>{formatCount(tenant.sent)}</td>
                      <td>
                        {percent(tenant.bounceRate, 2)}{' '}
                        <span className="muted">({formatCount(tenant.hardBounces)})</span>
                      </td>
                      <td>
                        {percent(tenant.complaintRate, 3)}{' '}
                        <span className="muted">({formatCount(tenant.complaints)})</span>
                      </td>
                      <td>{verdict(tenant, data.thresholds)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  )
}
