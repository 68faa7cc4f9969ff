import type { Quota, QuotaUsage } from '@fairlane/core/accept'

/**
 * Today's and this month's accepted mail against the tenant's quotas (UTC days and months, as the
 * API counts them), as native `<meter>` bars: server-rendered, no script. Nothing when no quota is set.
 */
export function QuotaBars({ quota, usage }: { quota: Quota; usage: QuotaUsage }) {
  const bars = [
    {
      id: 'daily',
      label: 'Today (UTC)',
      limit: quota.daily,
      used: usage.usedToday,
      resets: 'at midnight UTC',
    },
    {
      id: 'monthly',
      label: 'This month (UTC)',
      limit: quota.monthly,
      used: usage.usedThisMonth,
      resets: 'on the 1st, UTC',
    },
  ].filter((bar): bar is typeof bar & { limit: number } => bar.limit !== null)
  if (bars.length === 0) return null
  return (
    <section className="card" aria-labelledby="quota-use" data-testid="quota-bars">
      <h2 id="quota-use">Quota</h2>
      <p className="muted">
        Messages accepted against your plan’s quota, every way in together. Over it, sending answers 429 until
        the quota opens again.
      </p>
      <dl className="stats">
        {bars.map((bar) => (
          <div key={bar.id} data-testid={`quota-${bar.id}`}>
            <dt>{bar.label}</dt>
            <dd>
              {bar.used.toLocaleString('en')} of {bar.limit.toLocaleString('en')}
              <meter
                min={0}
                max={Math.max(1, bar.limit)}
                low={Math.max(1, bar.limit) * 0.8}
                high={Math.max(1, bar.limit) * 0.95}
                optimum={0}
                value={Math.min(bar.used, bar.limit)}
                aria-label={`${bar.label}: ${bar.used} of ${bar.limit} messages`}
                style={{ display: 'block', width: '100%' }}
              />
              <small>resets {bar.resets}</small>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
