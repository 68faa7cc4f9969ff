/**
 * The tenant audit log's actions (`<resource>.<verb>`), for the writers and the audit page's filter.
 * Member, role and invitation entries are written by the team use cases with names of their own; the
 * page's filter takes any action name, these are its suggestions.
 */
export const TENANT_AUDIT_ACTIONS = {
  apiKeyCreate: 'api_key.create',
  apiKeyRevoke: 'api_key.revoke',
  domainAdd: 'domain.add',
  domainRemove: 'domain.remove',
  domainDkimRotate: 'domain.dkim.rotate',
  webhookCreate: 'webhook.create',
  webhookUpdate: 'webhook.update',
  webhookDelete: 'webhook.delete',
  webhookSecretRotate: 'webhook.secret.rotate',
  /** A test event sent to an endpoint (a delivery made due now). */
  webhookTest: 'webhook.test',
  /** Deliveries made due again (`details.deliveryIds`). */
  webhookReplay: 'webhook.replay',
  /** The tenant's default From / Reply-To set or cleared. */
  senderDefaultUpdate: 'sender.default.update',
  /** Open and click tracking defaults and the "no tracking" switch. */
  trackingUpdate: 'tracking.update',
  suppressionRemove: 'suppression.remove',
  contactResubscribe: 'contact.resubscribe',
  /** The platform admin changed the tenant's sending plan (also in the admin audit log). */
  planUpdate: 'tenant.plan.update',
  /** The reputation guardrail moved the tenant to another stage (`details`: from, to, the finding). */
  reputationChange: 'tenant.reputation.change',
  /** The platform admin resumed the tenant after the guardrail paused or slowed it (`reason` says why). */
  reputationResume: 'tenant.reputation.resume',
} as const

export type TenantAuditAction = (typeof TENANT_AUDIT_ACTIONS)[keyof typeof TENANT_AUDIT_ACTIONS]

/** The audit log's label for what the reputation guardrail (the `reputation-check` job) did. */
export const REPUTATION_GUARDRAIL_ACTOR = 'Fairlane reputation guardrail'

/** The audit log's label for something the platform's operator did to a tenant. */
export function platformActorLabel(adminActor: string): string {
  return `Fairlane platform (${adminActor})`
}
