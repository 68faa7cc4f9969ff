// Access (roles, permissions, good standing) is pure logic, exported from the root.
export * from './access/client-unit'
export * from './access/permissions'
export {
  API_KEY_PREFIX_LENGTH,
  apiKeyMatches,
  apiKeyPrefix,
  generateAdminToken,
  generateApiKey,
  hashApiKey,
} from './api-keys/api-key'
export {
  API_KEY_NAME_MAX,
  type ApiKeyStore,
  type IssueApiKeyDeps,
  type IssueApiKeyInput,
  type IssuedApiKey,
  issueApiKey,
  type NewApiKeyRow,
} from './api-keys/issue-api-key'
export { checkKeyDomain, checkKeyScope, scopeAllows } from './api-keys/key-scope'
export {
  platformActorLabel,
  REPUTATION_GUARDRAIL_ACTOR,
  TENANT_AUDIT_ACTIONS,
  type TenantAuditAction,
} from './audit/audit-actions'
export { type AuditActor, apiKeyActorLabel } from './audit/audit-actor'
export { type AuditFilter, auditCursor, parseAuditFilter } from './audit/audit-filter'
export type { AuditOf, AuditRecord } from './audit/audit-record'
// Campaigns and unsubscribe (below) are exported from the root while the export map stays fixed.
export * from './campaigns'
export { groupBy } from './collections/group-by'
// Contacts are exported from the root: the package's export map is fixed for now.
export * from './contacts'
export { isLane, LANES, type Lane } from './domain/lanes'
export {
  API_KEY_SCOPES,
  type ApiKeyScope,
  CAMPAIGN_STATUSES,
  type CampaignStatus,
  DOMAIN_RECORD_PURPOSES,
  DOMAIN_STATUSES,
  type DomainRecordPurpose,
  type DomainStatus,
  MEMBERSHIP_ROLES,
  MESSAGE_EVENT_TYPES,
  MESSAGE_STATUSES,
  type MembershipRole,
  type MessageEventType,
  type MessageStatus,
  SUPPRESSION_REASONS,
  type SuppressionReason,
  TERMINAL_MESSAGE_STATUSES,
} from './domain/statuses'
// Feedback (bounces, complaints, auto-replies read from what comes back to a return path) like the rest.
export * from './feedback'
// A user's own profile (name, the zone times are shown in).
// Messages (the list, cancel, the scheduled-send releaser) are exported from the root like the rest.
export * from './messages'
// Operations (rollup planning) are exported from the root: the package's export map is fixed for now.
export * from './operations'
export {
  MESSAGE_PUBLISH_TOPIC,
  type MessagePublishEvent,
  messagePublishEvent,
  OUTBOX_CHANNEL,
} from './outbox/events'
// Named plans (PLANS) and what a tenant's plan columns hold: pure logic, exported from the root.
export * from './plans'
// A user's own profile (name, the zone times are shown in).
export * from './profile'
// Sender reputation (bounce and complaint rates, the providers' thresholds) is pure logic, exported from the root.
export * from './reputation'
// Segments (the attribute filter, saved as an audience) are exported from the root like campaigns.
export * from './segments'
// Sender identity (return paths, DNS record checks, domain names, DKIM rotation) is pure logic, exported from the root.
export * from './sender-identity'
// Senders (From / Reply-To: parsing, the verified-domain check, resolution) are exported from the root.
export * from './senders'
// Suppressions (scopes, the API's list, resubscribe) are exported from the root like unsubscribe.
export * from './suppressions'
// Team (invitations, roles, leaving) is exported from the root like the other use cases.
export * from './team'
// Templates are exported from the root: the package's export map is fixed for now.
export * from './templates'
// Tenant administration (provisioning, plans, approval, egress pool) as the platform admin's use cases.
export * from './tenants'
// Open and click tracking (signed tokens, the hit use case) is exported from the root like unsubscribe.
export * from './tracking'
export * from './unsubscribe'
// Usage (accepted and outcomes per day, quotas) is exported from the root like the other use cases.
export * from './usage'
// Webhooks (event types, signatures, retry schedule, address rules) are exported from the root like the rest.
export * from './webhooks'
