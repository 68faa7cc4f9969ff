'use client'

import { Area, AreaChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'
import { StatusBadge } from '@/components/status-badge'
import styles from '../admin.module.css'
import { formatAge, formatCount, formatInstant, OTHERS_COLOUR, SERIES_COLOURS } from '../format'
import { usePolling } from '../use-polling'

interface Fairness {
  windowSeconds: number
  bucketSeconds: number
  series: { key: string; name: string }[]
  points: Array<{ t: number } & Record<string, number>>
  shares: {
    tenantId: string
    name: string
    weight: number
    ratePerSec: number
    sent: number
    backlog: number
    share: number
    weightShare: number
    fairShare: number
  }[]
  jainIndex: number | null
  competedSeconds: number
  campaigns: {
    campaignId: string
    tenantName: string
    name: string
    status: string
    sendAt: string
    firstSentAt: string | null
    firstSendMs: number | null
    recipientCount: number
  }[]
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`

/** Per-tenant bulk rates (stacked), shares against weights, Jain's index, and time to first send. */
export function FairnessLive() {
  const { data, error } = usePolling<Fairness>('/api/admin/fairness')
  if (!data) return <p className="muted">{error ?? 'Loading…'}</p>
  const newest = data.points.at(-1)?.t ?? 0
  const colourOf = (key: string, index: number) =>
    key === 'others' ? OTHERS_COLOUR : (SERIES_COLOURS[index % SERIES_COLOURS.length] as string)
  const minutes = Math.round(data.windowSeconds / 60)
  return (
    <>
      <dl className="stats">
        <div>
          <dt>Jain’s fairness index</dt>
          <dd data-testid="jain-index">
            {data.jainIndex === null ? '—' : data.jainIndex.toFixed(3)}
            <small>
              {data.jainIndex === null
                ? `no two tenants sent bulk mail at the same time in the last ${minutes} min`
                : `bulk shares against fair shares over the ${data.competedSeconds} s of the last ${minutes} min when tenants competed (1 = each got its weighted max-min share under its plan)`}
            </small>
          </dd>
        </div>
        <div>
          <dt>Tenants competing</dt>
          <dd>
            {data.shares.length}
            <small>sent bulk mail or have some waiting</small>
          </dd>
        </div>
      </dl>
      <section className="card" aria-labelledby="rates-title">
        <figure className={styles.chart} data-testid="fairness-chart" data-series={data.series.length}>
          <figcaption id="rates-title">
            Bulk sends per second by tenant{' '}
            <span className="muted">
              — last {minutes} min in {data.bucketSeconds} s steps; the busiest{' '}
              {data.series.filter((s) => s.key !== 'others').length} shown, the rest as Others
            </span>
          </figcaption>
          {data.series.length === 0 ? (
            <p className="muted" data-testid="fairness-empty">
              No bulk mail sent in the last {minutes} minutes.
            </p>
          ) : (
            <AreaChart
              responsive
              className={styles.chartArea}
              data={data.points}
              margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
            >
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="t" tickFormatter={(t: number) => `${t - newest} s`} minTickGap={24} />
              <YAxis width={52} />
              <Tooltip
                labelFormatter={(t) => (typeof t === 'number' ? `${t - newest} s` : String(t))}
                formatter={(value) => `${Number(value).toFixed(1)}/s`}
                isAnimationActive={false}
              />
              <Legend />
              {data.series.map((series, index) => (
                <Area
                  key={series.key}
                  type="monotone"
                  dataKey={series.key}
                  name={series.name}
                  stackId="tenants"
                  stroke={colourOf(series.key, index)}
                  fill={colourOf(series.key, index)}
                  fillOpacity={0.5}
                  isAnimationActive={false}
                />
              ))}
            </AreaChart>
          )}
        </figure>
      </section>
      <section className="card" aria-labelledby="shares-title">
        <h2 id="shares-title">Share of bulk capacity against weight</h2>
        {data.shares.length === 0 ? (
          <p className="muted">No tenant is competing for the bulk lane right now.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="shares-table">
              <thead>
                <tr>
                  <th scope="col">Tenant</th>
                  <th scope="col">Sent</th>
                  <th scope="col">Share</th>
                  <th scope="col">Weight (share)</th>
                  <th scope="col">Fair share</th>
                  <th scope="col">Rate limit</th>
                  <th scope="col">Waiting</th>
                </tr>
              </thead>
              <tbody>
                {data.shares.map((tenant) => (
                  <tr key={tenant.tenantId} data-tenant={tenant.tenantId}>
                    <th scope="row">{tenant.name}</th>
                    <td data-testid="share-sent">{tenant.sent}</td>
                    <td>
                      <div className={styles.barTrack} title={`share ${percent(tenant.share)}`}>
                        <div className={styles.bar} style={{ width: percent(tenant.share) }} />
                      </div>
                      {percent(tenant.share)}
                    </td>
                    <td>
                      <div className={styles.barTrack} title={`weight share ${percent(tenant.weightShare)}`}>
                        <div className={styles.weightBar} style={{ width: percent(tenant.weightShare) }} />
                      </div>
                      {tenant.weight} ({percent(tenant.weightShare)})
                    </td>
                    <td title="what weighted max-min fairness under the plans gives it">
                      {percent(tenant.fairShare)}
                    </td>
                    <td>{tenant.ratePerSec}/s</td>
                    <td>{formatCount(tenant.backlog)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section className="card" aria-labelledby="first-send-title">
        <h2 id="first-send-title">Time to first send, recent campaigns</h2>
        {data.campaigns.length === 0 ? (
          <p className="muted">No campaign has reached its send time yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="first-send-table">
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Status</th>
                  <th scope="col">Recipients</th>
                  <th scope="col">Send time</th>
                  <th scope="col">First send after</th>
                </tr>
              </thead>
              <tbody>
                {data.campaigns.map((campaign) => (
                  <tr key={campaign.campaignId}>
                    <th scope="row">{campaign.name}</th>
                    <td>{campaign.tenantName}</td>
                    <td>
                      <StatusBadge status={campaign.status} />
                    </td>
                    <td>{formatCount(campaign.recipientCount)}</td>
                    <td>{formatInstant(campaign.sendAt)}</td>
                    <td>{campaign.firstSendMs === null ? 'not yet' : formatAge(campaign.firstSendMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  )
}
