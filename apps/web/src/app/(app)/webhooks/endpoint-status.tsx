import type { WebhookEndpointView } from '@fairlane/core'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'

/** Enabled, or disabled with the reason in words (and since when, for a disable for failing). */
export function EndpointStatus({ endpoint }: { endpoint: WebhookEndpointView }) {
  if (endpoint.enabled) {
    return (
      <>
        <StatusBadge status="enabled" />
        {endpoint.failingSince ? (
          <span className="muted">
            {' '}
            failing since <LocalTime value={endpoint.failingSince} />
          </span>
        ) : null}
      </>
    )
  }
  return (
    <>
      <StatusBadge status="disabled" />{' '}
      <span className="muted" data-testid="disabled-reason">
        {endpoint.disabledReason === 'failing' ? 'every delivery failed for 3 days' : 'switched off by you'}
      </span>
    </>
  )
}

/** Endpoints Fairlane switched off because every delivery failed for 3 days. */
export function failingDisabled(endpoints: readonly WebhookEndpointView[]): WebhookEndpointView[] {
  return endpoints.filter((endpoint) => !endpoint.enabled && endpoint.disabledReason === 'failing')
}
