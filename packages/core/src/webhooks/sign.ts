import { Webhook } from 'standardwebhooks'

/**
 * The Standard Webhooks headers of one request: `webhook-signature` is `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` keyed with the base64 after `whsec_`, one per secret, space-separated:
 * during a rotation's grace period both the new and the old secret sign, so a receiver still holding
 * the old one keeps verifying. Signed with the `standardwebhooks` package itself, so receivers using
 * it (or Svix's, or Resend's) read exactly what it writes.
 */
export interface WebhookHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

export function signWebhook(input: {
  webhookId: string
  timestamp: Date
  body: string
  /** The current secret first, then the previous one while its grace period lasts. */
  secrets: readonly string[]
}): WebhookHeaders {
  if (input.secrets.length === 0) throw new Error('a webhook needs at least one secret to sign with')
  const signatures = input.secrets.map((secret) =>
    new Webhook(secret).sign(input.webhookId, input.timestamp, input.body),
  )
  return {
    'webhook-id': input.webhookId,
    'webhook-timestamp': String(Math.floor(input.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
