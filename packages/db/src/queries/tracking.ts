import type { TrackingHit, TrackingStore } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'

/**
 * Tracked links for these URLs, created the first time (once per campaign; per tenant for API mail,
 * `campaignId` null), in one statement: URL → link id. The conflict target is the unique index's own
 * expressions; `do update` (a no-op) makes existing rows come back in RETURNING.
 */
export async function upsertTrackedLinks(
  db: Executor,
  input: { tenantId: string; campaignId: string | null; urls: readonly string[] },
): Promise<Map<string, number>> {
  if (input.urls.length === 0) return new Map()
  const rows = await db.execute<{ id: string | number; url: string }>(sql`
    insert into tracked_links (tenant_id, campaign_id, url)
    select ${input.tenantId}::uuid, ${input.campaignId}::uuid, url
    from jsonb_array_elements_text(${JSON.stringify(input.urls)}::jsonb) as u(url)
    on conflict (tenant_id, coalesce(campaign_id, '00000000-0000-0000-0000-000000000000'::uuid), md5(url))
    do update set url = excluded.url
    returning id, url`)
  return new Map(rows.map((row) => [row.url, Number(row.id)]))
}

/**
 * The message a verified token names, with whether this hit is a bot's: a bot user agent, or a hit
 * before the send was recorded or within the scanner window after it. Tokens carry no tenant: the
 * message's own row says whose it is, and everything below is scoped to that tenant.
 */
const hitMessage = (hit: TrackingHit) => sql`
  select m.id, m.tenant_id, m.campaign_id,
    (${hit.botUserAgent}::boolean or m.sent_at is null or m.sent_at >= ${hit.scannerSentAfter.toISOString()}::timestamptz) as bot
  from messages m where m.id = ${hit.messageId}::uuid`

/**
 * The key that makes a token's hits in one window one event (`TrackingHit.repeatWindowStart`), bots'
 * and people's apart: a scanner's hits never swallow the reader's first open. `what` names the token:
 * `opened`, or `clicked:<link id>`.
 */
const repeatKey = (what: string, hit: TrackingHit) =>
  sql`${what}::text || case when m.bot then ':bot:' else ':' end || ${hit.repeatWindowStart.toISOString()}::text`

/**
 * A later hit of the window, on the event its first hit wrote: counted, with its time. The webhook
 * outbox trigger fires on inserted events only, so a repeat reaches no endpoint.
 */
const countRepeat = sql`
  on conflict (message_id, dedupe_key) where dedupe_key is not null do update set
    detail = message_events.detail || jsonb_build_object(
      'repeats', coalesce((message_events.detail ->> 'repeats')::int, 0) + 1,
      'lastAt', excluded.at)`

/**
 * An open, in one statement: the `opened` event (one per window, bots flagged; later hits of the
 * window counted on it) and, for the first hit that is not a bot's, `first_opened_at`. The update
 * re-checks `first_opened_at is null` under the row lock, so of two concurrent first opens exactly
 * one is `first`.
 */
export async function recordOpen(db: Executor, hit: TrackingHit): Promise<boolean> {
  const [row] = await db.execute<{ found: boolean }>(sql`
    with m as (${hitMessage(hit)}),
    marked as (
      update messages set first_opened_at = ${hit.now.toISOString()}::timestamptz
      from m where messages.id = m.id and not m.bot and messages.first_opened_at is null
      returning messages.id),
    event as (
      insert into message_events (tenant_id, message_id, type, at, detail, dedupe_key)
      select m.tenant_id, m.id, 'opened', ${hit.now.toISOString()}::timestamptz, jsonb_strip_nulls(jsonb_build_object(
        'bot', m.bot, 'first', exists (select 1 from marked), 'userAgent', ${hit.userAgent}::text)),
        ${repeatKey('opened', hit)}
      from m
      ${countRepeat}
      returning 1)
    select exists (select 1 from event) as found`)
  return row?.found === true
}

/**
 * A click, in one statement: the link must be the message's tenant's and campaign's (API mail:
 * the tenant's, campaign null), else nothing is written and no URL comes back. Then the `clicked`
 * event (one per link and window, as opens), the link's counts for the message (every hit, bots
 * apart), and the first `first_clicked_at`.
 */
export async function recordClick(
  db: Executor,
  hit: TrackingHit & { linkId: number },
): Promise<string | null> {
  const [row] = await db.execute<{ url: string | null }>(sql`
    with m as (${hitMessage(hit)}),
    link as (
      select l.id, l.url from tracked_links l join m
        on l.tenant_id = m.tenant_id and l.campaign_id is not distinct from m.campaign_id
      where l.id = ${hit.linkId}::bigint),
    marked as (
      update messages set first_clicked_at = ${hit.now.toISOString()}::timestamptz
      from m, link where messages.id = m.id and not m.bot and messages.first_clicked_at is null
      returning messages.id),
    counted as (
      insert into link_clicks (tenant_id, link_id, message_id, clicks, bot_clicks, first_clicked_at, last_clicked_at)
      select m.tenant_id, link.id, m.id,
        case when m.bot then 0 else 1 end, case when m.bot then 1 else 0 end,
        case when m.bot then null else ${hit.now.toISOString()}::timestamptz end, ${hit.now.toISOString()}::timestamptz
      from m, link
      on conflict (link_id, message_id) do update set
        clicks = link_clicks.clicks + excluded.clicks,
        bot_clicks = link_clicks.bot_clicks + excluded.bot_clicks,
        first_clicked_at = coalesce(link_clicks.first_clicked_at, excluded.first_clicked_at),
        last_clicked_at = excluded.last_clicked_at
      returning 1),
    event as (
      insert into message_events (tenant_id, message_id, type, at, detail, dedupe_key)
      select m.tenant_id, m.id, 'clicked', ${hit.now.toISOString()}::timestamptz, jsonb_strip_nulls(jsonb_build_object(
        'linkId', link.id, 'url', link.url, 'bot', m.bot, 'first', exists (select 1 from marked),
        'userAgent', ${hit.userAgent}::text)),
        ${repeatKey(`clicked:${hit.linkId}`, hit)}
      from m, link
      ${countRepeat}
      returning 1)
    select (select url from link) as url`)
  return row?.url ?? null
}

export function createTrackingStore(db: Executor): TrackingStore {
  return {
    recordOpen: (hit) => recordOpen(db, hit),
    recordClick: (hit) => recordClick(db, hit),
  }
}
