import {
  type AuditActor,
  type DomainView,
  type SuppressionEntry,
  TENANT_AUDIT_ACTIONS,
  type TenantAuditAction,
  type WebhookEndpointView,
} from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { auditWho, insertTenantAuditEntry } from '@fairlane/db/queries/tenant-audit'
import { type ApiCaller, apiAuditActor } from '../auth/api-key'

export interface AuditedChange {
  tenantId: string
  actor: AuditActor
  action: TenantAuditAction
  targetType: string
  targetId: string
  details?: Record<string, unknown>
}

/**
 * Appends to the tenant's audit log after a change made through a use case that owns its own
 * transaction (domains, webhooks, suppressions): written once the change committed, so an entry
 * never describes a change that did not happen (a crash in between loses the entry, not the change).
 */
export async function recordAudit(db: Database, change: AuditedChange): Promise<void> {
  const { tenantId, actor, ...entry } = change
  await insertTenantAuditEntry(db, { tenantId, entry: { ...auditWho(actor), ...entry } })
}

export type AuditedWhat = Omit<AuditedChange, 'tenantId' | 'actor'>

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
  suppressionRemoved: (entry: Pick<SuppressionEntry, 'email' | 'reason' | 'scope'>): AuditedWhat => ({
    action: TENANT_AUDIT_ACTIONS.suppressionRemove,
    targetType: 'suppression',
    targetId: entry.email,
    details: { reason: entry.reason, scope: entry.scope },
  }),
}

/** An `/api/v1` caller's change: actor `API key <prefix>`, the request's client address. */
export function recordApiAudit(
  db: Database,
  request: Request,
  caller: Pick<ApiCaller, 'tenantId' | 'keyPrefix'>,
  what: AuditedWhat,
): Promise<void> {
  return recordAudit(db, { tenantId: caller.tenantId, actor: apiAuditActor(request, caller), ...what })
}
