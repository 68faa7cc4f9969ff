import {
  type AuditActor,
  type AuditOf,
  type AuditRecord,
  type DomainView,
  type StoredDomain,
  type SuppressionEntry,
  TENANT_AUDIT_ACTIONS,
  type WebhookEndpointView,
} from '@fairlane/core'
import { type ApiCaller, apiAuditActor } from '../auth/api-key'

/** What an audited change records, less who: the actor is the caller's (`auditBy`, `apiAudit`). */
export type AuditedWhat = Omit<AuditRecord, 'actor'>

/** What each audited change records, the same from the pages and from `/api/v1`. */
export const audited = {
  domainAdded: (domain: Pick<DomainView, 'id' | 'name'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.domainAdd,
    targetType: 'domain',
    targetId: domain.id,
    details: { name: domain.name },
  }),
  domainRemoved: (domain: Pick<DomainView, 'id' | 'name'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.domainRemove,
    targetType: 'domain',
    targetId: domain.id,
    details: { name: domain.name },
  }),
  /** A new DKIM key listed beside the active one: which selector waits, which still signs. */
  dkimRotated: (domain: Pick<StoredDomain, 'id' | 'name' | 'dkim'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.domainDkimRotate,
    targetType: 'domain',
    targetId: domain.id,
    details: {
      name: domain.name,
      newSelector: domain.dkim.pending?.selector ?? null,
      activeSelector: domain.dkim.active?.selector ?? null,
    },
  }),
  webhookCreated: (endpoint: Pick<WebhookEndpointView, 'id' | 'url' | 'events'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.webhookCreate,
    targetType: 'webhook',
    targetId: endpoint.id,
    details: { url: endpoint.url, events: endpoint.events },
  }),
  /** `changed`: the fields the request set (never the secret, which a patch cannot carry anyway). */
  webhookUpdated: (
    endpoint: Pick<WebhookEndpointView, 'id' | 'url' | 'enabled'>,
    changed: string[],
  ): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.webhookUpdate,
    targetType: 'webhook',
    targetId: endpoint.id,
    details: { url: endpoint.url, changed, enabled: endpoint.enabled },
  }),
  webhookDeleted: (endpoint: Pick<WebhookEndpointView, 'id' | 'url'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.webhookDelete,
    targetType: 'webhook',
    targetId: endpoint.id,
    details: { url: endpoint.url },
  }),
  webhookSecretRotated: (endpointId: string): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.webhookSecretRotate,
    targetType: 'webhook',
    targetId: endpointId,
  }),
  webhookTestSent: (delivery: { id: string; endpointId: string }): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.webhookTest,
    targetType: 'webhook',
    targetId: delivery.endpointId,
    details: { deliveryId: delivery.id },
  }),
  webhookReplayed: (endpointId: string, deliveryIds: string[]): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.webhookReplay,
    targetType: 'webhook',
    targetId: endpointId,
    details: { deliveryIds },
  }),
  /** Set or cleared (nulls: mail that names no From goes from the platform's sender). */
  defaultSenderSet: (
    tenantId: string,
    sender: { from: string | null; replyTo: string | null },
  ): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.senderDefaultUpdate,
    targetType: 'tenant',
    targetId: tenantId,
    details: { from: sender.from, replyTo: sender.replyTo },
  }),
  trackingSaved: (
    tenantId: string,
    settings: { trackOpens: boolean; trackClicks: boolean; trackingDisabled: boolean },
  ): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.trackingUpdate,
    targetType: 'tenant',
    targetId: tenantId,
    details: { ...settings },
  }),
  suppressionRemoved: (entry: Pick<SuppressionEntry, 'email' | 'reason' | 'scope'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.suppressionRemove,
    targetType: 'suppression',
    targetId: entry.email,
    details: { reason: entry.reason, scope: entry.scope },
  }),
}

/**
 * The audit entry of a change by `actor`, for a use case to hand to its store: the store writes it in
 * the change's own transaction (core's `AuditOf`), so entry and change commit or roll back together.
 */
export function auditBy<T>(actor: AuditActor, what: (changed: T) => AuditedWhat): AuditOf<T> {
  return (changed) => ({ actor, ...what(changed) })
}

/** `auditBy` for an `/api/v1` caller: actor `API key <prefix>`, the request's client address. */
export function apiAudit<T>(
  request: Request,
  caller: Pick<ApiCaller, 'keyPrefix'>,
  what: (changed: T) => AuditedWhat,
): AuditOf<T> {
  return auditBy(apiAuditActor(request, caller), what)
}
