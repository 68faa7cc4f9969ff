import type { DeliveryErrorCode } from '@fairlane/core/delivery'
import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { campaigns } from './campaigns'
import { createdAt, oneOf, timestamptz, updatedAt } from './columns'
import { contacts } from './contacts'
import { LANES, type Lane, MESSAGE_STATUSES, type MessageStatus } from './literals'
import { sendingDomains } from './sending-domains'
import { tenantId } from './tenant-column'

/**
 * One row per recipient delivery, API or campaign. This table is the source of truth for what must
 * be sent; Redis only ever holds `{ messageId, tenantId }` for rows in `queued`/`sending`.
 */
export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    /** No cascade: a campaign with deliveries is cancelled, not deleted, so its history stays. */
    campaignId: uuid('campaign_id').references(() => campaigns.id),
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    lane: text('lane').$type<Lane>().notNull(),
    /**
     * Never `sending` in the table: a message an attempt holds is `queued` here with a row in
     * `message_claims`, and reads as `sending` (`messageStatus` in the queries).
     */
    status: text('status').$type<MessageStatus>().notNull().default('pending'),
    /** `otp`, `password-reset`, `verify-email`, a tenant template slug, or null for custom content. */
    template: text('template'),
    /** The version of the tenant template it was rendered from (null for built-in and custom mail). */
    templateVersion: integer('template_version'),
    toAddress: text('to_address').notNull(),
    /**
     * The From header as resolved when the message was accepted or dispatched (`Name <local@domain>`),
     * on `sending_domain_id`'s domain; null: the platform's MAIL_FROM with the tenant's name.
     */
    fromAddress: text('from_address'),
    replyTo: text('reply_to'),
    /**
     * The verified domain that signs it. Set null when the domain is deleted (history stays); a domain
     * with mail still open (pending, queued, sending, held) cannot be deleted.
     */
    sendingDomainId: uuid('sending_domain_id').references(() => sendingDomains.id, { onDelete: 'set null' }),
    /** Null for campaign mail: it is rendered from the campaign and contact at send time. */
    subject: text('subject'),
    html: text('html'),
    text: text('text'),
    variables: jsonb('variables').$type<Record<string, unknown>>(),
    /** API mail asks for tracking per message (off unless asked); campaign mail follows its campaign. */
    trackOpens: boolean('track_opens').notNull().default(false),
    trackClicks: boolean('track_clicks').notNull().default(false),
    /** The first open and click not flagged as a bot's: the unique counts are rows where they are set. */
    firstOpenedAt: timestamptz('first_opened_at'),
    firstClickedAt: timestamptz('first_clicked_at'),
    attempts: integer('attempts').notNull().default(0),
    /**
     * Bumped by every deliberate re-publish (admin replay, the sweeper after Redis lost a job): the
     * job id is derived from (id, generation), so a re-publish is not swallowed by BullMQ keeping
     * the old job id, while a relay repeating the same publish still maps to one job.
     */
    generation: integer('generation').notNull().default(0),
    /** The raw reason of the last failed attempt (an SMTP reply can name relays): admins only. */
    lastError: text('last_error'),
    /** The classified reason tenants see (`DeliveryErrorCode`), with a fixed short text. */
    lastErrorCode: text('last_error_code').$type<DeliveryErrorCode>(),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the canonical request body: the same key with another body is answered 422. */
    requestHash: text('request_hash'),
    queuedAt: timestamptz('queued_at'),
    /** A scheduled send's time (status `scheduled` until then; the outbox row is written when it comes). */
    sendAt: timestamptz('send_at'),
    /**
     * The way in that accepted it: `api`, `batch`, `smtp` (submission) or `app` (the tenant app);
     * null for campaign mail and rows older than migration 0026.
     */
    source: text('source'),
    /** The message's size as accepted (body and attachments, decoded): usage and fairness count bytes too. */
    sizeBytes: integer('size_bytes'),
    sentAt: timestamptz('sent_at'),
    failedAt: timestamptz('failed_at'),
    /**
     * When the nightly cleanup cleared `html`, `text` and `variables` (MESSAGE_BODY_RETENTION_DAYS):
     * login codes and reset links are not kept forever. Metadata (recipient, status, times) stays.
     */
    bodyRemovedAt: timestamptz('body_removed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('messages_lane_check', oneOf(t.lane, LANES)),
    check('messages_status_check', oneOf(t.status, MESSAGE_STATUSES)),
    // Null keys are distinct in PostgreSQL, so messages without a key never collide.
    unique('messages_tenant_idempotency_key_unique').on(t.tenantId, t.idempotencyKey),
    // Makes campaign dispatch idempotent: a resumed batch inserts with ON CONFLICT DO NOTHING.
    unique('messages_campaign_contact_unique').on(t.campaignId, t.contactId),
    index('messages_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('messages_tenant_campaign_status_idx').on(t.tenantId, t.campaignId, t.status),
    // The message list's filter by recipient (`GET /api/v1/messages?to=`, case-blind), in the list's
    // newest-first keyset order, so a page reads its rows in order instead of scanning the tenant's
    // history for one address. (A campaign's messages are listed through the tenant/campaign index
    // and sorted: one more index on this table, written by every send, was not worth that filter.)
    // Keyed by the address first, not the tenant: one address has few messages across all tenants (the
    // tenant is a filter on those), and an index led by tenant_id would compete with the tenant's others.
    index('messages_recipient_created_idx').on(sql`lower(${t.toAddress})`, t.createdAt, t.id),
    // The pacer's backlog: each tenant's oldest pending bulk rows, without touching sent history.
    index('messages_bulk_backlog_idx')
      .on(t.tenantId, t.createdAt, t.id)
      .where(sql`${t.status} = 'pending' and ${t.lane} = 'bulk'`),
    // Scheduled sends that are due, oldest first.
    index('messages_scheduled_due_idx').on(t.sendAt).where(sql`${t.status} = 'scheduled'`),
    // The sweeper re-enqueues rows queued long ago whose job Redis lost.
    index('messages_queued_idx').on(t.queuedAt).where(sql`${t.status} = 'queued'`),
    // Nightly cleanup forgets idempotency keys past their retention.
    index('messages_idempotency_expiry_idx').on(t.createdAt).where(sql`${t.idempotencyKey} is not null`),
    // A campaign's sends per second (its progress chart) without reading its whole history.
    index('messages_campaign_sent_idx').on(t.campaignId, t.sentAt).where(sql`${t.sentAt} is not null`),
    // Failed messages, newest first: the dead letters PostgreSQL restores to Redis after a data loss.
    index('messages_failed_idx').on(t.failedAt).where(sql`${t.status} = 'failed'`),
    // The daily rollup's day of sent and of suppressed messages (failed ones: the index above).
    index('messages_sent_at_idx').on(t.sentAt).where(sql`${t.status} = 'sent'`),
    index('messages_suppressed_at_idx').on(t.updatedAt).where(sql`${t.status} = 'suppressed'`),
    // The body retention: per lane, the oldest messages still holding a body.
    index('messages_body_retention_idx').on(t.lane, t.createdAt).where(sql`${t.bodyRemovedAt} is null`),
    // Open mail of a sending domain: held mail released when it verifies again, a delete refused.
    index('messages_sending_domain_open_idx')
      .on(t.sendingDomainId)
      .where(
        sql`${t.sendingDomainId} is not null and ${t.status} in ('pending', 'scheduled', 'queued', 'sending', 'held')`,
      ),
    // A soft bounce asks whether the tenant delivered to the address since the last one (the count
    // starts again if so): sent messages by recipient, case-blind.
    index('messages_sent_recipient_idx')
      .on(t.tenantId, sql`lower(${t.toAddress})`, t.sentAt)
      .where(sql`${t.status} = 'sent'`),
    // Deleting a contact sets its messages' contact_id to null; without this each delete scans the table.
    index('messages_contact_idx').on(t.contactId).where(sql`${t.contactId} is not null`),
    // The template versions messages were rendered from: a template's history keeps those (see
    // `pruneTemplateVersions`) while trimming the rest to TEMPLATE_VERSIONS_KEPT.
    index('messages_template_version_idx')
      .on(t.tenantId, t.template, t.templateVersion)
      .where(sql`${t.templateVersion} is not null`),
    // Message retention (MESSAGE_RETENTION_DAYS) walks finished messages oldest first, keyset by
    // (created_at, id). Partial on the terminal statuses: open rows (pending, queued, sending, held)
    // never enter it, so the walk never steps over a backlog, and their status changes write no entry.
    index('messages_retention_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.status} in ('sent', 'failed', 'suppressed', 'cancelled', 'bounced', 'complained')`),
  ],
)

export type Message = typeof messages.$inferSelect
export type NewMessage = typeof messages.$inferInsert
