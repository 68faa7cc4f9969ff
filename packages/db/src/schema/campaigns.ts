import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { createdAt, oneOf, timestamptz, updatedAt } from './columns'
import { lists, segments } from './contacts'
import { CAMPAIGN_STATUSES, type CampaignStatus } from './literals'
import { tenantId } from './tenant-column'

/**
 * Reusable content the API can send by slug (`template: "welcome"`). The row holds the current
 * version; every version, the current one included, is also kept in `template_versions`. Nothing
 * refers to a template after the fact: an accepted message stores what it rendered, and a campaign
 * started from a template copies its content, so a template can always be changed or deleted.
 */
export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    /** Null when the template is text only; at least one of `html` and `text` is set. */
    html: text('html'),
    text: text('text'),
    /** The From header mail sent with this template uses unless the request names one; null: the default. */
    fromAddress: text('from_address'),
    replyTo: text('reply_to'),
    /** 1 when created, +1 for each change of subject, HTML or text. */
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('templates_tenant_slug_unique').on(t.tenantId, t.slug),
    check('templates_content_check', sql`${t.html} is not null or ${t.text} is not null`),
  ],
)

/** Each version of a template's content as it was saved; deleted with its template. */
export const templateVersions = pgTable(
  'template_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    templateId: uuid('template_id')
      .notNull()
      .references(() => templates.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    subject: text('subject').notNull(),
    html: text('html'),
    text: text('text'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('template_versions_template_version_unique').on(t.templateId, t.version),
    index('template_versions_tenant_idx').on(t.tenantId),
  ],
)

export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    text: text('text'),
    /** `Name <local@domain>` on a verified domain of the tenant; null: the tenant's default sender. */
    fromAddress: text('from_address'),
    replyTo: text('reply_to'),
    /** Open pixel and click rewriting, resolved from the tenant's defaults when the campaign is created. */
    trackOpens: boolean('track_opens').notNull().default(false),
    trackClicks: boolean('track_clicks').notNull().default(false),
    /**
     * Null means every subscribed contact. No cascade: deleting a list must not silently turn a
     * scheduled campaign into a send to everyone, so the delete is refused while a campaign uses it.
     */
    listId: uuid('list_id').references(() => lists.id),
    /** A saved segment as the audience instead of a list (segments are only marked deleted, never removed). */
    segmentId: uuid('segment_id').references(() => segments.id),
    status: text('status').$type<CampaignStatus>().notNull().default('draft'),
    /** The instant to send, computed from `send_at_local` in `time_zone`. */
    sendAt: timestamptz('send_at'),
    /** The wall time as entered (`2026-12-24T09:00`), kept so the UI shows what the user typed. */
    sendAtLocal: text('send_at_local'),
    /** IANA zone name, e.g. `Europe/Berlin`. */
    timeZone: text('time_zone'),
    /** Last contact id turned into a message, so a dispatch interrupted by a crash resumes after it. */
    dispatchCursor: uuid('dispatch_cursor'),
    /** Messages created by dispatch so far; the denominator of the campaign's progress. */
    recipientCount: integer('recipient_count').notNull().default(0),
    dispatchedAt: timestamptz('dispatched_at'),
    completedAt: timestamptz('completed_at'),
    cancelledAt: timestamptz('cancelled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('campaigns_tenant_created_idx').on(t.tenantId, t.createdAt),
    // The due check scans only scheduled campaigns, however many have been sent.
    index('campaigns_due_idx').on(t.sendAt).where(sql`${t.status} = 'scheduled'`),
    // The completion check walks the sending campaigns by id, a slice per pass, however many have
    // been sent (`completeFinishedCampaigns`).
    index('campaigns_sending_idx').on(t.id).where(sql`${t.status} = 'sending'`),
    check('campaigns_status_check', oneOf(t.status, CAMPAIGN_STATUSES)),
    check('campaigns_one_audience_check', sql`${t.listId} is null or ${t.segmentId} is null`),
    // "Which campaigns still use this segment?" when it is to be deleted.
    index('campaigns_segment_idx').on(t.segmentId).where(sql`${t.segmentId} is not null`),
    check('campaigns_scheduled_send_at_check', sql`${t.status} <> 'scheduled' or ${t.sendAt} is not null`),
  ],
)

export type Template = typeof templates.$inferSelect
export type NewTemplate = typeof templates.$inferInsert
export type TemplateVersion = typeof templateVersions.$inferSelect
export type Campaign = typeof campaigns.$inferSelect
export type NewCampaign = typeof campaigns.$inferInsert
