'use client'

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts'
import { type DataColumn, DataTable } from '@/components/data-table'
import type { ReceiversJson } from '@/server/api/admin/receivers'
import styles from '../admin.module.css'
import { formatCount, formatInstant, SERIES_COLOURS } from '../format'
import { usePolling } from '../use-polling'
import { chartedReceivers, HISTORY_SAMPLES, receiverKey, useRateHistory } from './receiver-history'

type Receiver = ReceiversJson[number]

const perMinute = (value: number | undefined) =>
  value === undefined ? '—' : `${value.toLocaleString('en', { maximumFractionDigits: 1 })}/min`
const percent = (value: number) => `${Math.round(value * 100)}%`

/** Paused (nothing is sent), recovering (below its ceiling, probing upward) or at its ceiling. */
export function receiverState(receiver: Receiver): 'paused' | 'recovering' | 'at ceiling' {
  if (receiver.pausedUntil) return 'paused'
  if (receiver.ceilingPerMinute !== undefined && receiver.ratePerMinute < receiver.ceilingPerMinute)
    return 'recovering'
  return 'at ceiling'
}

/** A tenant by name, or by the start of its id when it has none (gone); the full id on hover. */
function TenantName({ tenant }: { tenant: { id: string; name?: string } }) {
  return tenant.name ? (
    <span title={tenant.id}>{tenant.name}</span>
  ) : (
    <code title={tenant.id}>{tenant.id.slice(0, 8)}</code>
  )
}

const STATE_BADGES = { paused: 'failed', recovering: 'pending', 'at ceiling': 'sent' } as const

const COLUMNS: DataColumn<Receiver>[] = [
  { header: 'Provider', rowHeader: true, cell: (receiver) => receiver.provider },
  { header: 'Egress address', cell: (receiver) => receiver.egress || 'system’s choice' },
  {
    header: 'State',
    testId: 'receiver-state',
    cell: (receiver) => {
      const state = receiverState(receiver)
      return <span className={`badge badge-${STATE_BADGES[state]}`}>{state}</span>
    },
  },
  {
    header: 'Allowed now',
    align: 'end',
    testId: 'receiver-rate',
    cell: (receiver) => perMinute(receiver.ratePerMinute),
  },
  { header: 'Ceiling', align: 'end', cell: (receiver) => perMinute(receiver.ceilingPerMinute) },
  {
    header: 'Last throttled at',
    align: 'end',
    title: 'the rate the provider last throttled at, before the cut',
    cell: (receiver) => perMinute(receiver.lastThrottledPerMinute),
  },
  {
    header: 'Paused until',
    testId: 'receiver-paused-until',
    cell: (receiver) => (receiver.pausedUntil ? formatInstant(receiver.pausedUntil) : '—'),
  },
  {
    header: 'Throttled 5 / 60 min',
    align: 'end',
    testId: 'receiver-throttled',
    cell: (receiver) => `${formatCount(receiver.throttled5m)} / ${formatCount(receiver.throttled60m)}`,
  },
  {
    header: 'Deferred 5 / 60 min',
    align: 'end',
    testId: 'receiver-deferred',
    cell: (receiver) => `${formatCount(receiver.deferred5m)} / ${formatCount(receiver.deferred60m)}`,
  },
  {
    header: 'Attempts 5 / 60 min',
    align: 'end',
    cell: (receiver) => `${formatCount(receiver.attempts5m)} / ${formatCount(receiver.attempts60m)}`,
  },
  {
    header: 'Tenants (share, 5 min)',
    testId: 'receiver-tenants',
    cell: (receiver) =>
      receiver.tenants.length === 0 ? (
        '—'
      ) : (
        <ul className={styles.plainList}>
          {receiver.tenants.map((tenant) => (
            <li key={tenant.id}>
              <TenantName tenant={tenant} /> {percent(tenant.share)}
            </li>
          ))}
        </ul>
      ),
  },
  {
    header: 'Slowed tenants',
    testId: 'receiver-slowed',
    title: 'tenants the provider throttled by their own domain: slowed there alone',
    cell: (receiver) =>
      receiver.slowedTenants.length === 0 ? (
        '—'
      ) : (
        <ul className={styles.plainList}>
          {receiver.slowedTenants.map((tenant) => (
            <li key={tenant.id}>
              <TenantName tenant={tenant} /> {perMinute(tenant.ratePerMinute)}
              {tenant.pausedUntil ? `, paused until ${formatInstant(tenant.pausedUntil)}` : ''}
            </li>
          ))}
        </ul>
      ),
  },
  {
    header: 'Last throttle reply',
    testId: 'receiver-last-reply',
    className: styles.replyCell,
    cell: (receiver) =>
      receiver.lastReply ? (
        <>
          <span>{receiver.lastReply}</span>
          {receiver.lastThrottledAt ? (
            <small className="muted"> ({formatInstant(receiver.lastThrottledAt)})</small>
          ) : null}
        </>
      ) : (
        '—'
      ),
  },
]

/** Per provider and egress address: the pace allowed now, its history on this page, and who sends there. */
export function ReceiversLive() {
  const { data, error } = usePolling<ReceiversJson>('/api/admin/receivers')
  const history = useRateHistory(data)
  if (!data) return <p className="muted">{error ?? 'Loading…'}</p>
  const charted = chartedReceivers(data)
  const newest = history.at(-1)?.t ?? 0
  const held = data.filter((receiver) => receiverState(receiver) !== 'at ceiling').length
  return (
    <>
      {error ? (
        <p className={styles.error} role="alert">
          {error}
        </p>
      ) : null}
      <dl className="stats">
        <div>
          <dt>Receivers</dt>
          <dd data-testid="receivers-count">
            {data.length}
            <small>provider × egress address pairs with a state or mail in the last hour</small>
          </dd>
        </div>
        <div>
          <dt>Held back</dt>
          <dd data-testid="receivers-held">
            {held}
            <small>paused, or below their ceiling after a throttle</small>
          </dd>
        </div>
      </dl>
      <section className="card" aria-labelledby="receiver-rates-title">
        <figure className={styles.chart} data-testid="receivers-chart" data-series={charted.length}>
          <figcaption id="receiver-rates-title">
            Allowed messages a minute{' '}
            <span className="muted">
              — sampled by this page every 2 s since it opened (up to {HISTORY_SAMPLES} samples); the{' '}
              {charted.length} most held back shown
            </span>
          </figcaption>
          {charted.length === 0 ? (
            <p className="muted">No receiver yet: MX mode has sent nothing and no provider has throttled.</p>
          ) : (
            <LineChart
              responsive
              className={styles.chartArea}
              data={history}
              margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
            >
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="t" tickFormatter={(t: number) => `${t - newest} s`} minTickGap={24} />
              <YAxis width={52} />
              <Tooltip
                labelFormatter={(t) => (typeof t === 'number' ? `${t - newest} s` : String(t))}
                formatter={(value) => perMinute(Number(value))}
                isAnimationActive={false}
              />
              <Legend />
              {charted.map((key, index) => (
                <Line
                  key={key}
                  type="stepAfter"
                  dataKey={key}
                  name={key}
                  stroke={SERIES_COLOURS[index % SERIES_COLOURS.length]}
                  dot={false}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          )}
        </figure>
      </section>
      <section className="card" aria-labelledby="receivers-title">
        <h2 id="receivers-title">Providers by egress address</h2>
        <DataTable
          label="Providers by egress address"
          testId="receivers-table"
          className={styles.receiversTable}
          columns={COLUMNS}
          rows={data}
          rowKey={receiverKey}
          rowData={(receiver) => ({
            'data-provider': receiver.provider,
            'data-egress': receiver.egress,
          })}
          empty={
            <p className="muted" data-testid="receivers-empty">
              No receiver yet. In MX mode (<code>DELIVERY_MODE=mx</code>) each provider Fairlane delivers to
              appears here with its pace.
            </p>
          }
        />
      </section>
    </>
  )
}
