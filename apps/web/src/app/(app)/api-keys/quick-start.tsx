import Link from 'next/link'
import { CopyButton } from '@/components/copy-button'

/** The placeholder shown until a key is created on this page (a fresh load never shows a key again). */
export const KEY_PLACEHOLDER = '$FAIRLANE_API_KEY'

/** The first call a developer makes, as one curl command; the key is shell-safe (`fl_` and base64url). */
export function curlQuickStart(baseUrl: string, key: string): string {
  const body = JSON.stringify({ to: 'you@example.com', subject: 'Hello from Fairlane', text: 'It works.' })
  return [
    `curl -X POST ${baseUrl}/api/v1/messages \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    '  -H "Content-Type: application/json" \\',
    `  -d '${body}'`,
  ].join('\n')
}

/** Sends a first message with the key just created, or with a placeholder for one. */
export function QuickStart({ baseUrl, apiKey }: { baseUrl: string; apiKey: string | undefined }) {
  const command = curlQuickStart(baseUrl, apiKey ?? KEY_PLACEHOLDER)
  return (
    <section aria-labelledby="quick-start">
      <h3 id="quick-start">Quick start</h3>
      <p className="muted">
        {apiKey
          ? 'Send a first message with the key you just created:'
          : `Create a key to see it here; until then, set ${KEY_PLACEHOLDER} to one of your keys.`}{' '}
        Every call is in the <Link href="/api-docs">API reference</Link>.
      </p>
      <pre className="code-block" data-testid="curl-quick-start">
        {command}
      </pre>
      <CopyButton text={command} label="Copy command" />
    </section>
  )
}
