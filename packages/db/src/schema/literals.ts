/**
 * The lanes, statuses, roles and reasons the tables store. They are defined once, in
 * `@fairlane/core`, and the CHECK constraints here are built from the same arrays, so PostgreSQL
 * never holds a value the code cannot name. Adding a value: edit core, then `pnpm db:generate`.
 */
export {
  API_KEY_SCOPES,
  type ApiKeyScope,
  CAMPAIGN_STATUSES,
  type CampaignStatus,
  DOMAIN_RECORD_PURPOSES,
  DOMAIN_STATUSES,
  type DomainRecordPurpose,
  type DomainStatus,
  GUARDED_STAGES,
  type GuardedStage,
  LANES,
  type Lane,
  MEMBERSHIP_ROLES,
  MESSAGE_EVENT_TYPES,
  MESSAGE_STATUSES,
  type MembershipRole,
  type MessageEventType,
  type MessageStatus,
  REPUTATION_STAGES,
  type ReputationStage,
  SUPPRESSION_REASONS,
  SUPPRESSION_SCOPES,
  type SuppressionReason,
  type SuppressionScope,
  WEBHOOK_DELIVERY_EVENT_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDeliveryEventType,
  type WebhookDeliveryStatus,
  type WebhookEventType,
} from '@fairlane/core'
