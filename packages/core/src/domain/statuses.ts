/**
 * A message's life: pending (campaign backlog in PostgreSQL) → queued (a job exists) → sending → a
 * terminal state. `cancelled`: its campaign was cancelled before the message was sent. `held`: its
 * sender domain cannot sign (its DKIM record stopped verifying); it waits, unsent, until the domain
 * verifies again and it goes back to `pending` — never sent unsigned. `bounced` and `complained`
 * come after `sent`: the receiving side answered later, through the inbound server (a hard bounce,
 * a complaint report).
 */
export const MESSAGE_STATUSES = [
  'pending',
  'scheduled',
  'queued',
  'sending',
  'sent',
  'failed',
  'suppressed',
  'cancelled',
  'held',
  'bounced',
  'complained',
] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]
export const TERMINAL_MESSAGE_STATUSES = [
  'sent',
  'failed',
  'suppressed',
  'cancelled',
  'bounced',
  'complained',
] as const satisfies readonly MessageStatus[]

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'dispatching',
  'sending',
  /** Its tenant's bulk lane is paused by the reputation guardrail: its pending mail waits for a resume. */
  'paused',
  'sent',
  'cancelled',
] as const
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number]

/**
 * A member's role in a tenant, most powerful first: owners manage billing-like settings (the plan,
 * deleting the tenant), admins manage members, domains, keys and webhooks, members work with
 * contacts and campaigns. What each may do is `access/permissions.ts`.
 */
export const MEMBERSHIP_ROLES = ['owner', 'admin', 'member'] as const
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number]

/** What an API key may do: `full` (every `/api/v1` route) or `sending` (send messages, read their status). */
export const API_KEY_SCOPES = ['full', 'sending'] as const
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number]

export const SUPPRESSION_REASONS = ['hard-bounce', 'complaint', 'manual', 'unsubscribe'] as const
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number]

/** A tenant's sending domain: usable (`verified`) once its DKIM and return-path records verify. */
export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const
export type DomainStatus = (typeof DOMAIN_STATUSES)[number]

/** What each DNS record shown for a domain is for; `ownership` only when another tenant has the domain. */
export const DOMAIN_RECORD_PURPOSES = ['dkim', 'return-path', 'spf', 'dmarc', 'ownership'] as const
export type DomainRecordPurpose = (typeof DOMAIN_RECORD_PURPOSES)[number]

/**
 * What can happen to a message, each a `message_events` row written in the transaction that made it
 * happen: `accepted` (the API or a campaign dispatch created it), `queued` (a job exists),
 * `deferred` (the tenant's bucket was empty), `sent` (the next hop said 250), `retrying` (a
 * transient error, another attempt is scheduled), `failed` (for good), `bounced` and `complained`
 * (the inbound server heard so later), `suppressed` (skipped: the address is suppressed),
 * `unsubscribed` (the recipient used its link), `opened` and `clicked` (tracking), `scheduled` (accepted
 * with a `sendAt`: it waits for its time) and `cancelled` (a scheduled message cancelled before its time).
 */
export const MESSAGE_EVENT_TYPES = [
  'accepted',
  'queued',
  'deferred',
  'sent',
  'retrying',
  'failed',
  'bounced',
  'complained',
  'suppressed',
  'unsubscribed',
  'opened',
  'clicked',
  'scheduled',
  'cancelled',
] as const
export type MessageEventType = (typeof MESSAGE_EVENT_TYPES)[number]
