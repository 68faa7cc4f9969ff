import { sql } from 'drizzle-orm'
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { campaigns } from './campaigns'
import { createdAt, timestamptz } from './columns'
import { tenantId } from './tenant-column'

/**
 * Each distinct link of tracked mail, once per campaign (or per tenant for API mail, `campaign_id`
 * null). A click URL's signed token names the message and this id, never the URL itself, so a token
 * cannot be edited into an open redirect and stays short.
 */
export const trackedLinks = pgTable(
  'tracked_links',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId(),
    campaignId: uuid('campaign_id').references(() => campaigns.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // md5 of the URL, not the URL: a btree entry must stay under ~2.7 KB and URLs need not.
    uniqueIndex('tracked_links_unique').on(
      t.tenantId,
      sql`coalesce(${t.campaignId}, '00000000-0000-0000-0000-000000000000'::uuid)`,
      sql`md5(${t.url})`,
    ),
    index('tracked_links_campaign_idx').on(t.campaignId).where(sql`${t.campaignId} is not null`),
  ],
)

/**
 * Clicks per link per message: the per-link table's unique clicks are its rows with `clicks > 0`.
 * `bot_clicks` are hits from known bots and link scanners (a bot user agent, or within seconds of
 * delivery), kept out of the unique counts.
 */
export const linkClicks = pgTable(
  'link_clicks',
  {
    tenantId: tenantId(),
    linkId: bigint('link_id', { mode: 'number' })
      .notNull()
      .references(() => trackedLinks.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id').notNull(),
    clicks: integer('clicks').notNull().default(0),
    botClicks: integer('bot_clicks').notNull().default(0),
    firstClickedAt: timestamptz('first_clicked_at'),
    lastClickedAt: timestamptz('last_clicked_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'link_clicks_pk', columns: [t.linkId, t.messageId] }),
    index('link_clicks_tenant_idx').on(t.tenantId),
    // Message retention deletes a message's clicks with it.
    index('link_clicks_message_idx').on(t.messageId),
  ],
)

export type TrackedLink = typeof trackedLinks.$inferSelect
export type LinkClick = typeof linkClicks.$inferSelect
