import type { Sql } from 'postgres'

/**
 * What the throughput run's PostgreSQL holds besides its own campaign, to show that the work per email
 * does not grow with it (`pgRowsPerEmail`): every row inserted in bulk (generate_series), before the
 * measurement starts, then VACUUM ANALYZE, as autovacuum would have left a table that grew over time.
 */

const DAY_MS = 24 * 60 * 60 * 1000
/** The backlog's owner: another tenant, its plan 1 mail/s, so its backlog waits and stays. */
const BACKLOG_TENANT_ID = '00000000-0000-4000-8000-0000000b1a5e'

/**
 * `rows` pending bulk messages of another tenant (a big campaign waiting at 1 mail/s): the pacer sees
 * that tenant every tick and releases about one of its rows per second; the rest stays pending
 * through the run, in the backlog index the pacer and the send path share with the measured tenant.
 */
export async function seedBacklog(sql: Sql, input: { rows: number; domain: string }): Promise<void> {
  await sql`
    insert into tenants (id, name, rate_per_sec, burst, weight)
    values (${BACKLOG_TENANT_ID}, 'Backlog tenant', 1, 1, 1)
    on conflict (id) do nothing`
  await sql`
    insert into messages (tenant_id, lane, status, to_address, subject, html, text, created_at, updated_at)
    select ${BACKLOG_TENANT_ID}::uuid, 'bulk', 'pending', 'waiting' || g || '@' || ${input.domain},
      'Still waiting', '<p>Waiting in the backlog</p>', 'Waiting in the backlog',
      now() - interval '1 hour' + g * interval '1 microsecond',
      now() - interval '1 hour'
    from generate_series(1, ${input.rows}) g`
}

/**
 * `days` days of finished mail before today, `perDay` messages a day over the measured tenant and the
 * backlog tenant (sent, a few failed and suppressed), each with its `queued` and `sent` events, as if
 * no retention had run: the history every hot query must step around.
 */
export async function seedHistory(
  sql: Sql,
  input: { days: number; perDay: number; tenantId: string; domain: string },
): Promise<void> {
  await sql`
    insert into tenants (id, name, rate_per_sec, burst, weight)
    values (${BACKLOG_TENANT_ID}, 'Backlog tenant', 1, 1, 1)
    on conflict (id) do nothing`
  const rows = input.days * input.perDay
  const spanMs = input.days * DAY_MS
  // Rows in time order, as they would have arrived; the i-th row `spanMs * i / rows` after the start.
  await sql`
    insert into messages (tenant_id, lane, status, to_address, subject, created_at, queued_at, sent_at,
      failed_at, updated_at, attempts, body_removed_at)
    select case when g % 3 = 0 then ${BACKLOG_TENANT_ID}::uuid else ${input.tenantId}::uuid end,
      case when g % 10 = 0 then 'default' else 'bulk' end,
      s.status, 'past' || g || '@' || ${input.domain}, 'Past news', t.at, t.at, 
      case when s.status = 'sent' then t.at + interval '2 seconds' end,
      case when s.status = 'failed' then t.at + interval '2 seconds' end,
      t.at + interval '2 seconds', 1, t.at + interval '30 days'
    from generate_series(1, ${rows}) g
    cross join lateral (
      select now() - ${spanMs} * interval '1 millisecond' - interval '1 day'
        + (g::float8 / ${rows}) * ${spanMs} * interval '1 millisecond' as at) t
    cross join lateral (
      select case when g % 50 = 0 then 'failed' when g % 97 = 0 then 'suppressed' else 'sent' end as status) s`
  await sql`
    insert into message_events (tenant_id, message_id, type, at)
    select m.tenant_id, m.id, e.type, m.created_at from messages m
    cross join (values ('queued'), ('sent')) e(type)
    where m.subject = 'Past news' and m.status = 'sent'`
}

/** Statistics and a visibility map for the bulk-inserted rows, as autovacuum would leave them. */
export async function vacuumAnalyze(sql: Sql): Promise<void> {
  await sql`vacuum analyze messages`
  await sql`vacuum analyze message_events`
}
