import type { WebhookEventType } from './event-types'
import type { StoredWebhookEndpoint, WebhookDisabledReason } from './ports'

/** An endpoint as the API and the Webhooks page show it: everything but its secrets. */
export interface WebhookEndpointView {
  id: string
  url: string
  description: string | null
  events: WebhookEventType[]
  enabled: boolean
  disabledReason: WebhookDisabledReason | null
  disabledAt: Date | null
  /** The first failed attempt since the last success; 3 days of failing disable the endpoint. */
  failingSince: Date | null
  lastSuccessAt: Date | null
  /** While in the future, requests carry the rotated-out secret's signature too. */
  previousSecretExpiresAt: Date | null
  createdAt: Date
  updatedAt: Date
}

/** What a create or a rotation answers, once: the view and the new secret. */
export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  secret: string
}

export function webhookEndpointView(endpoint: StoredWebhookEndpoint, now: Date): WebhookEndpointView {
  const graceRunning =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt,
    failingSince: endpoint.failingSince,
    lastSuccessAt: endpoint.lastSuccessAt,
    previousSecretExpiresAt: graceRunning ? endpoint.previousSecretExpiresAt : null,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  }
}
