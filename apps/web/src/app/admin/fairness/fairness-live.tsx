'use client'

import { Area, AreaChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts'
import { type DataColumn, DataTable } from '@/components/data-table'
import { StatusBadge } from '@/components/status-badge'
import type { CampaignStartJson, FairnessJson } from '@/server/api/admin/fairness'
import type { TenantShare } from '@/server/api/admin/fairness-view'
import styles from '../admin.module.css'
import { formatAge, formatCount, formatInstant, OTHERS_COLOUR, SERIES_COLOURS } from '../format'
import { usePolling } from '../use-polling'

const percent = (value: number) => `${(value * 100).toFixed(1)}%`

const SHARE_COLUMNS: DataColumn<TenantShare>[] = [
  { header: 'Tenant', rowHeader: true, cell: (tenant) => tenant.name },
  { header: 'Sent', testId: 'share-sent', cell: (tenant) => tenant.sent },
  {
    header: 'Share',
    cell: (tenant) => (
      <>
        <div className={styles.barTrack} title={`share ${percent(tenant.share)}`}>
          <div className={styles.bar} style={{ width: percent(tenant.share) }} />
        </div>
        {percent(tenant.share)}
      </>
    ),
  },
  {
    header: 'Weight (share)',
    cell: (tenant) => (
      <>
        <div className={styles.barTrack} title={`weight share ${percent(tenant.weightShare)}`}>
          <div className={styles.weightBar} style={{ width: percent(tenant.weightShare) }} />
        </div>
        {tenant.weight} ({percent(tenant.weightShare)})
      </>
    ),
  },
  {
    header: 'Fair share',
    title: 'what weighted max-min fairness under the plans gives it',
    cell: (tenant) => percent(tenant.fairShare),
  },
  { header: 'Rate limit', cell: (tenant) => `${tenant.ratePerSec}/s` },
  { header: 'Waiting', cell: (tenant) => formatCount(tenant.backlog) },
]

const FIRST_SEND_COLUMNS: DataColumn<CampaignStartJson>[] = [
  { header: 'Campaign', rowHeader: true, cell: (campaign) => campaign.name },
  { header: 'Tenant', cell: (campaign) => campaign.tenantName },
  { header: 'Status', cell: (campaign) => <StatusBadge status={campaign.status} /> },
  { header: 'Recipients', cell: (campaign) => formatCount(campaign.recipientCount) },
  { header: 'Send time', cell: (campaign) => formatInstant(campaign.sendAt) },
  {
    header: 'First send after',
    cell: (campaign) => (campaign.firstSendMs === null ? 'not yet' : formatAge(campaign.firstSendMs)),
  },
]

/** Per-tenant bulk rates (stacked), shares against weights, Jain's index, and time to first send. */
export function FairnessLive() {
  const { data, error } = usePolling<FairnessJson>('/api/admin/fairness')
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
        <DataTable
          label="Share of bulk capacity against weight"
          testId="shares-table"
          columns={SHARE_COLUMNS}
          rows={data.shares}
          rowKey={(tenant) => tenant.tenantId}
          rowData={(tenant) => ({ 'data-tenant': tenant.tenantId })}
          empty={<p className="muted">No tenant is competing for the bulk lane right now.</p>}
        />
      </section>
      <section className="card" aria-labelledby="first-send-title">
        <h2 id="first-send-title">Time to first send, recent campaigns</h2>
        <DataTable
          label="Time to first send, recent campaigns"
          testId="first-send-table"
          columns={FIRST_SEND_COLUMNS}
          rows={data.campaigns}
          rowKey={(campaign) => campaign.campaignId}
          empty={<p className="muted">No campaign has reached its send time yet.</p>}
        />
      </section>
    </>
  )
}
