import type { WebhookEndpointView } from '@fairlane/core'
import Link from 'next/link'
import styles from './webhooks.module.css'

/**
 * Said at the top of the Webhooks page and the dashboard when Fairlane switched an endpoint off
 * because every delivery failed for 3 days: its events wait until the tenant fixes the receiver and
 * enables it again.
 */
export function FailingWebhooksBanner({ endpoints }: { endpoints: readonly WebhookEndpointView[] }) {
  if (endpoints.length === 0) return null
  const [first] = endpoints
  return (
    <div className={styles.banner} role="alert" data-testid="failing-webhooks-banner">
      <p>
        <strong>
          {endpoints.length === 1
            ? 'A webhook endpoint was disabled'
            : `${endpoints.length} webhook endpoints were disabled`}
        </strong>{' '}
        because every delivery to {endpoints.length === 1 ? 'it' : 'them'} failed for 3 days. Fix the
        receiver, then enable it again: new events wait for it meanwhile.{' '}
        {first ? (
          <Link href={endpoints.length === 1 ? `/webhooks/${first.id}` : '/webhooks'}>
            {endpoints.length === 1 ? first.url : 'See the endpoints'}
          </Link>
        ) : null}
      </p>
    </div>
  )
}
