/**
 * A message's life: pending (campaign backlog in PostgreSQL) → queued (a job exists) → sending → a
 * terminal state. `cancelled`: its campaign was cancelled before the message was sent.
 */
export const MESSAGE_STATUSES = [
  'pending',
  'queued',
  'sending',
  'sent',
  'failed',
  'suppressed',
  'cancelled',
] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]
export const TERMINAL_MESSAGE_STATUSES = [
  'sent',
  'failed',
  'suppressed',
  'cancelled',
] as const satisfies readonly MessageStatus[]

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'dispatching',
  'sending',
  'sent',
  'cancelled',
] as const
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number]

export const MEMBERSHIP_ROLES = ['owner', 'member'] as const
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number]

export const SUPPRESSION_REASONS = ['hard-bounce', 'complaint', 'manual', 'unsubscribe'] as const
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number]
