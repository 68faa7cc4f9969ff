import type { AuditOf } from '../audit/audit-record'
import type { WebhookEndpointPatch } from './endpoint-input'
import { type WebhookEndpointView, webhookEndpointView } from './endpoint-view'
import { endpointNotFound } from './get-webhook-endpoint'
import type {
  StoredWebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointQuery,
  WebhookUrlDeps,
} from './ports'
import { checkWebhookUrl } from './webhook-url'

/**
 * Changes an endpoint's URL, events, description or switch. The URL is checked (with its DNS lookup)
 * before the row is locked, so a slow resolver never holds the lock.
 */
export async function updateWebhookEndpoint(
  input: WebhookEndpointQuery & {
    patch: WebhookEndpointPatch
    /** The update's audit entry, written with it (not when the patch changes nothing). */
    audit?: AuditOf<StoredWebhookEndpoint> | undefined
  },
  deps: WebhookUrlDeps,
): Promise<WebhookEndpointView> {
  const { patch } = input
  const url = patch.url === undefined ? undefined : await checkWebhookUrl(patch.url, deps)
  const now = deps.clock.now()
  const updated = await deps.store.updateEndpoint(
    { tenantId: input.tenantId, endpointId: input.endpointId },
    (current) => endpointChange(current, { ...patch, url }, now),
    input.audit,
  )
  if (updated === null) throw endpointNotFound(input.endpointId)
  return webhookEndpointView(updated, now)
}

/**
 * The change a patch makes. Switching off records who did it (`manual`); switching back on starts
 * afresh: a disable for failing, its failing streak and a park are cleared, so the first delivery goes
 * out now instead of waiting out a pause earned by the broken receiver the tenant has since fixed. A
 * new URL is a new receiver: its predecessor's streak and park do not carry over either.
 */
export function endpointChange(
  current: StoredWebhookEndpoint,
  patch: WebhookEndpointPatch,
  now: Date,
): WebhookEndpointChange | null {
  const change: WebhookEndpointChange = {}
  if (patch.events !== undefined) change.events = patch.events
  if (patch.description !== undefined) change.description = patch.description || null
  if (patch.url !== undefined && patch.url !== current.url) {
    Object.assign(change, { url: patch.url, ...FRESH_START })
  }
  if (patch.enabled === false && current.enabled) {
    Object.assign(change, { enabled: false, disabledReason: 'manual', disabledAt: now })
  }
  if (patch.enabled === true && !current.enabled) {
    Object.assign(change, { enabled: true, disabledReason: null, disabledAt: null, ...FRESH_START })
  }
  return Object.keys(change).length === 0 ? null : change
}

const FRESH_START = { failingSince: null, parkedUntil: null, parkLevel: 0 } satisfies WebhookEndpointChange
