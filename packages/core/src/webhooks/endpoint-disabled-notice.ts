/**
 * An endpoint whose attempts have all failed for this long (no success since `failing_since`) is
 * disabled: three days covers a long weekend's outage, and past it the retries only pile up
 * deliveries the tenant would replay by hand anyway.
 */
export const WEBHOOK_DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000

/**
 * The mail that tells a tenant's owner their endpoint was disabled: what, since when, and how to
 * turn it back on (the Webhooks page; failed deliveries can be replayed from its log).
 */
export function endpointDisabledNotice(input: { url: string; failingSince: Date; appUrl: string }): {
  subject: string
  text: string
  html: string
} {
  const since = input.failingSince.toISOString().replace('T', ' ').slice(0, 16)
  const page = `${input.appUrl.replace(/\/$/, '')}/webhooks`
  const subject = 'Your webhook endpoint was disabled'
  const text = [
    `Every delivery to your webhook endpoint ${input.url} has failed since ${since} UTC, so Fairlane disabled it.`,
    '',
    `Fix the endpoint, then enable it again on the Webhooks page: ${page}`,
    'Deliveries that failed meanwhile are in its delivery log, where you can replay them.',
  ].join('\n')
  const html = `<p>Every delivery to your webhook endpoint <code>${escapeHtml(input.url)}</code> has failed since ${since} UTC, so Fairlane disabled it.</p>
<p>Fix the endpoint, then enable it again on the <a href="${escapeHtml(page)}">Webhooks page</a>. Deliveries that failed meanwhile are in its delivery log, where you can replay them.</p>`
  return { subject, text, html }
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
