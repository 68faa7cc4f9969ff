'use client'

import type { UsageReport } from '@fairlane/core'
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'
import type { TenantHistoryJson } from '@/server/api/admin/tenant-history'
import styles from '../admin.module.css'
import { formatCount } from '../format'
import { usePolling } from '../use-polling'

/** A tenant's last 30 rolled-up days (the worker's nightly rollup), or a note that there are none yet. */
export function TenantHistory({
  tenant,
  onClose,
}: {
  tenant: { id: string; name: string }
  onClose(): void
}) {
  const { data, error } = usePolling<TenantHistoryJson>(`/api/admin/tenants/${tenant.id}/daily`, 60_000)
  const usage = usePolling<UsageReport>(`/api/admin/tenants/${tenant.id}/usage`, 60_000).data
  const totals = (data?.days ?? []).reduce(
    (sum, day) => ({ sent: sum.sent + day.sent, failed: sum.failed + day.failed }),
    { sent: 0, failed: 0 },
  )
  return (
    <section className="card" aria-labelledby="history-title" data-testid="tenant-history">
      <div className="page-header">
        <h2 id="history-title">{tenant.name}: last 30 days</h2>
        <button type="button" className="button-secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {usage ? <UsageSummary usage={usage} /> : null}
      {!data ? (
        <p className="muted">{error ?? 'Loading…'}</p>
      ) : data.days.length === 0 ? (
        <p className="muted" data-testid="history-empty">
          No days rolled up yet. The worker writes each finished day shortly after midnight (UTC); today shows
          tomorrow.
        </p>
      ) : (
        <figure className={styles.chart}>
          <figcaption>
            Per day{' '}
            <span className="muted">
              — {formatCount(totals.sent)} sent, {formatCount(totals.failed)} failed over {data.days.length}{' '}
              day{data.days.length === 1 ? '' : 's'}
            </span>
          </figcaption>
          <BarChart
            responsive
            className={styles.chartArea}
            data={data.days}
            margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          >
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} />
            <YAxis allowDecimals={false} width={52} />
            <Tooltip isAnimationActive={false} />
            <Legend />
            <Bar dataKey="sent" stackId="day" fill="#1d6f5f" isAnimationActive={false} />
            <Bar dataKey="failed" stackId="day" fill="#a4161a" isAnimationActive={false} />
            <Bar dataKey="suppressed" stackId="day" fill="#9a978f" isAnimationActive={false} />
            <Bar dataKey="deferred" fill="#f4a259" isAnimationActive={false} />
          </BarChart>
        </figure>
      )}
    </section>
  )
}

/** The last 30 days' accepted mail and what became of it, and the quotas' use (UTC), from the usage report. */
function UsageSummary({ usage }: { usage: UsageReport }) {
  const total = usage.days.reduce(
    (sum, day) => ({
      accepted: sum.accepted + day.accepted,
      sent: sum.sent + day.sent,
      bounced: sum.bounced + day.bounced,
      complained: sum.complained + day.complained,
    }),
    { accepted: 0, sent: 0, bounced: 0, complained: 0 },
  )
  const { quota } = usage
  return (
    <dl className="stats" data-testid="tenant-usage">
      <div>
        <dt>Accepted, 30 days</dt>
        <dd>{formatCount(total.accepted)}</dd>
      </div>
      <div>
        <dt>Sent / bounced / complained</dt>
        <dd>
          {formatCount(total.sent)} / {formatCount(total.bounced)} / {formatCount(total.complained)}
        </dd>
      </div>
      {quota ? (
        <div>
          <dt>Quota used (UTC)</dt>
          <dd>
            today {formatCount(quota.usedToday)}
            {quota.daily === undefined ? '' : ` of ${formatCount(quota.daily)}`}, this month{' '}
            {formatCount(quota.usedThisMonth)}
            {quota.monthly === undefined ? '' : ` of ${formatCount(quota.monthly)}`}
          </dd>
        </div>
      ) : null}
    </dl>
  )
}
