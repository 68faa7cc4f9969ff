export {
  API_KEY_PREFIX_LENGTH,
  apiKeyMatches,
  apiKeyPrefix,
  generateAdminToken,
  generateApiKey,
  hashApiKey,
} from './api-keys/api-key'
export { isLane, LANES, type Lane } from './domain/lanes'
export {
  CAMPAIGN_STATUSES,
  type CampaignStatus,
  MEMBERSHIP_ROLES,
  MESSAGE_STATUSES,
  type MembershipRole,
  type MessageStatus,
  SUPPRESSION_REASONS,
  type SuppressionReason,
  TERMINAL_MESSAGE_STATUSES,
} from './domain/statuses'
export {
  MESSAGE_PUBLISH_TOPIC,
  type MessagePublishEvent,
  messagePublishEvent,
  OUTBOX_CHANNEL,
} from './outbox/events'
