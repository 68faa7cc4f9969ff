import { CopyButton } from '@/components/copy-button'

/** Where the platform's SMTP submission listens, as an app's mail settings ask for it. */
export interface SubmissionEndpoint {
  host: string
  /** The STARTTLS port (587 in production). */
  port: number
  /** The implicit-TLS port (465), when the platform opens one. */
  tlsPort: number | null
}

/** The settings as one block of text, for the copy button and for apps' configuration files. */
export function smtpSettingsText(endpoint: SubmissionEndpoint): string {
  return [
    `SMTP host: ${endpoint.host}`,
    `Port: ${endpoint.port} (STARTTLS)`,
    ...(endpoint.tlsPort === null ? [] : [`Port: ${endpoint.tlsPort} (TLS from the start)`]),
    'User name: fairlane (any name works)',
    'Password: an API key (a sending key is enough)',
    'Authentication: PLAIN or LOGIN, after STARTTLS',
  ].join('\n')
}

/**
 * For applications that speak only SMTP (WordPress, Keycloak, Gitea, a printer): the same API key is
 * the SMTP password, and the same plan, quotas and domain restriction hold for mail sent that way.
 */
export function SmtpSettings({ endpoint }: { endpoint: SubmissionEndpoint }) {
  const text = smtpSettingsText(endpoint)
  return (
    <section className="card" aria-labelledby="smtp-settings">
      <h2 id="smtp-settings">SMTP settings</h2>
      <p className="muted">
        Applications that cannot call the API send through SMTP submission with an API key as the password.
        Each recipient becomes its own message, held to the same plan and quotas as API mail; the{' '}
        <code>X-Fairlane-Lane: critical</code> header puts login codes in their own lane.
      </p>
      <dl className="details" data-testid="smtp-settings">
        <dt>Host</dt>
        <dd>
          <code>{endpoint.host}</code>
        </dd>
        <dt>Port</dt>
        <dd>
          <code>{endpoint.port}</code> with STARTTLS
          {endpoint.tlsPort === null ? null : (
            <>
              , or <code>{endpoint.tlsPort}</code> with TLS from the start
            </>
          )}
        </dd>
        <dt>User name</dt>
        <dd>
          any, e.g. <code>fairlane</code>
        </dd>
        <dt>Password</dt>
        <dd>an API key (a sending key is enough; a key restricted to a domain sends only from it)</dd>
        <dt>Encryption</dt>
        <dd>required before AUTH (PLAIN or LOGIN)</dd>
      </dl>
      <CopyButton text={text} label="Copy SMTP settings" />
    </section>
  )
}
