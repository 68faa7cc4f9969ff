import {
  type CampaignDueSoon,
  type CompletionSlice,
  type DispatchBatchResult,
  type DispatchStore,
  type DispatchTarget,
  resolveSender,
} from '@fairlane/core'
import { PACER_CHANNEL } from '@fairlane/core/pacing'
import { sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { segmentFilterSql } from './segment-filter-sql'
import { findSegmentFilter } from './segments'
import { createSenderDomains } from './senders'
import { addAcceptedUsage } from './usage'

/**
 * Campaign dispatch: a due campaign's audience becomes one `messages` row per contact, in batches
 * of contacts walked by id (keyset), each batch its own short transaction that also moves the
 * campaign's cursor. Nothing is loaded into the worker: the page is read and inserted by one
 * statement. `unique (campaign_id, contact_id)` with ON CONFLICT DO NOTHING makes a batch that is
 * run twice (a dispatcher killed after its COMMIT was lost, two dispatchers) add nothing twice.
 *
 * Unsubscribed and suppressed contacts are written as `suppressed` rows rather than skipped, so the
 * campaign's counts say how many were left out and why (`last_error`), from the same table.
 *
 * The same statement writes each message's `accepted` event (and a left-out one's `suppressed`), as
 * one INSERT … SELECT from the rows it inserted: no row of the page crosses the wire twice.
 *
 * Each row gets its sender in the same insert: the campaign's From / Reply-To, else the tenant's
 * default as it is when the batch runs, with the domain that signs it (`resolveSender`).
 */

/** `dispatchDueCampaigns`'s store in PostgreSQL; each batch commits before it resolves. */
export function createDispatchStore(db: Database): DispatchStore {
  return {
    completeFinished: (input) => completeFinishedCampaigns(db, input),
    findDispatchable: (input) => findDispatchableCampaigns(db, input),
    dispatchBatch: (input) => dispatchCampaignBatch(db, input),
    findDueSoon: (input) => findCampaignsDueSoon(db, input),
  }
}

/** Scheduled campaigns whose time has come, and dispatches left unfinished (a dispatcher died). */
export async function findDispatchableCampaigns(
  db: Executor,
  input: { limit: number },
): Promise<DispatchTarget[]> {
  const rows = await db.execute<{ id: string; tenant_id: string }>(sql`
    select id, tenant_id from campaigns
    where (status = 'scheduled' and send_at <= now()) or status = 'dispatching'
    order by send_at nulls first
    limit ${input.limit}`)
  return rows.map((row) => ({ id: row.id, tenantId: row.tenant_id }))
}

/** Scheduled campaigns due within the next `withinMs`, with how long until each is due (by the database's clock). */
export async function findCampaignsDueSoon(
  db: Executor,
  input: { withinMs: number; limit: number },
): Promise<CampaignDueSoon[]> {
  const rows = await db.execute<{ id: string; tenant_id: string; due_in_ms: number; send_at_ms: number }>(sql`
    select id, tenant_id,
      (extract(epoch from (send_at - now())) * 1000)::float8 as due_in_ms,
      (extract(epoch from send_at) * 1000)::float8 as send_at_ms
    from campaigns
    where status = 'scheduled'
      and send_at > now()
      and send_at <= now() + ${Math.ceil(input.withinMs)}::int * interval '1 millisecond'
    order by send_at
    limit ${input.limit}`)
  return rows.map((row) => ({
    id: row.id,
    tenantId: row.tenant_id,
    dueInMs: Number(row.due_in_ms),
    sendAtMs: Number(row.send_at_ms),
  }))
}

/**
 * One batch of a campaign's dispatch, in one transaction: lock the campaign row (SKIP LOCKED, so a
 * second dispatcher moves on instead of waiting), insert the next `batchSize` contacts after the
 * cursor as messages, move the cursor, and mark the campaign `sending` after the last page — or
 * `sent` at once when the whole audience came to no messages (it may be scheduled while still empty:
 * the audience is resolved now, at send time). A cancelled campaign is never locked here, so
 * cancelling stops dispatch at the next batch.
 */
export async function dispatchCampaignBatch(
  db: Database,
  input: { campaignId: string; batchSize: number },
): Promise<DispatchBatchResult> {
  return db.transaction(async (tx) => {
    const [campaign] = await tx.execute<{
      tenant_id: string
      list_id: string | null
      segment_id: string | null
      dispatch_cursor: string | null
      from_address: string | null
      reply_to: string | null
      default_from: string | null
      default_reply_to: string | null
    }>(sql`
      select c.tenant_id, c.list_id, c.segment_id, c.dispatch_cursor, c.from_address, c.reply_to,
        t.default_from, t.default_reply_to
      from campaigns c join tenants t on t.id = c.tenant_id
      where c.id = ${input.campaignId}
        and ((c.status = 'scheduled' and c.send_at <= now()) or c.status = 'dispatching')
      for update of c skip locked`)
    if (!campaign) return { kind: 'skipped' }

    const { tenant_id: tenantId, list_id: listId, segment_id: segmentId, dispatch_cursor: cursor } = campaign
    const sender = await resolveSender(
      {
        tenantId,
        explicit: {},
        saved: { from: campaign.from_address, replyTo: campaign.reply_to },
        defaults: { from: campaign.default_from, replyTo: campaign.default_reply_to },
      },
      { domains: createSenderDomains(tx) },
    )
    // A segment is resolved here, batch by batch: whoever matches its filter when the page is read
    // gets the campaign (a contact that started matching after scheduling included).
    const segment = segmentId ? await findSegmentFilter(tx, { tenantId, segmentId }) : null
    if (segmentId && segment === null)
      throw new Error(`campaign ${input.campaignId}: segment ${segmentId} not found`)
    const matching = segment
      ? sql`and ${segmentFilterSql(segment, { attributes: sql`c.attributes`, createdAt: sql`c.created_at` })}`
      : sql``
    // The page's ids come first, from one index in its own order, from the cursor on — the list's
    // primary key (list_id, contact_id), or contacts (tenant_id, id) — so each page is an index range
    // scan that stops after one page whatever the planner's statistics (a freshly imported list has
    // none). Joining contacts to list members in one query instead read every remaining member
    // for every page: seconds per page, minutes per 100,000 recipients, on a million-member list.
    const after = cursor ? sql`and ${listId ? sql`lm.contact_id` : sql`c.id`} > ${cursor}` : sql``
    const ids = listId
      ? sql`select lm.contact_id as id from list_members lm
          where lm.list_id = ${listId} and lm.tenant_id = ${tenantId} ${after}
          order by lm.list_id, lm.contact_id
          limit ${input.batchSize}`
      : sql`select c.id from contacts c
          where c.tenant_id = ${tenantId} ${matching} ${after}
          order by c.tenant_id, c.id
          limit ${input.batchSize}`
    // The page must be read in the index's order and stop after one page. With the statistics of a
    // freshly imported audience (a few rows) the planner chose a bitmap scan of every contact after
    // the cursor and a sort instead, so each page read the rest of the audience (EXPLAIN ANALYZE in
    // the middle of a 20,000-contact campaign: 9,999 index entries for a page of 500; quadratic in
    // the audience's size). For this transaction only: scans that stop after the page.
    await tx.execute(
      sql`select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`,
    )
    const [result] = await tx.execute<{
      scanned: number
      last_id: string | null
      inserted: number
      excluded: number
    }>(sql`
      with ids as (${ids}),
      page as (
        select c.id, c.email,
          case
            when c.unsubscribed_at is not null then 'unsubscribed'
            when s.email is not null then 'suppressed: ' || s.reason
          end as excluded
        from ids
        join contacts c on c.id = ids.id and c.tenant_id = ${tenantId}
        left join suppressions s on s.tenant_id = c.tenant_id and s.email = c.email
      ), inserted as (
        insert into messages (tenant_id, campaign_id, contact_id, lane, status, to_address, last_error,
          from_address, reply_to, sending_domain_id)
        select ${tenantId}, ${input.campaignId}, id, 'bulk',
          case when excluded is null then 'pending' else 'suppressed' end,
          email, excluded,
          ${sender.fromAddress}::text, ${sender.replyTo}::text, ${sender.sendingDomainId}::uuid
        from page
        order by id
        on conflict (campaign_id, contact_id) do nothing
        returning id, status, last_error
      ), events as (
        -- Every message its accepted event, and a left-out one its suppressed event after it (all the
        -- accepted rows first, so each suppressed one has the higher id). The reason is read back from
        -- the last_error this statement wrote: joining the page again would be a nested loop over two
        -- CTEs, which the planner cannot estimate (a quarter of a second per page of 2,000).
        insert into message_events (tenant_id, message_id, type, detail)
        select ${tenantId}, i.id, e.type, e.detail
        from inserted i
        cross join lateral (values
          (1, 'accepted', ${JSON.stringify({ lane: 'bulk', campaignId: input.campaignId })}::jsonb),
          (2, 'suppressed', jsonb_build_object('reason', case
            when i.last_error = 'unsubscribed' then 'unsubscribe'
            else substring(i.last_error from '^suppressed: (.*)$') end))) as e(step, type, detail)
        where e.step = 1 or i.status = 'suppressed'
        order by e.step
      )
      select
        (select count(*) from ids)::int as scanned,
        (select id from ids order by id desc limit 1) as last_id,
        (select count(*) from inserted)::int as inserted,
        (select count(*) from inserted where status = 'suppressed')::int as excluded,
        -- Delivered at commit: the pacer's leader releases the new rows now (PACER_CHANNEL).
        (select count(*) from (
          select pg_notify(${PACER_CHANNEL}, '') from inserted where status = 'pending' limit 1) n)::int as woke`)
    if (!result) throw new Error('dispatch batch returned no summary row')
    // The campaign's mail counts toward the tenant's usage as it becomes messages, in their transaction
    // (those left out for a suppression or an unsubscribe are never sent and do not count).
    await addAcceptedUsage(tx, {
      tenantId,
      at: new Date(),
      lane: 'bulk',
      count: result.inserted - result.excluded,
      bytes: 0,
    })

    const done = result.scanned < input.batchSize
    const [updated] = await tx.execute<{ status: string }>(sql`
      update campaigns set
        status = case
          when not ${done} then 'dispatching'
          when recipient_count + ${result.inserted} = 0 then 'sent'
          else 'sending' end,
        completed_at = case when ${done} and recipient_count + ${result.inserted} = 0 then now() else completed_at end,
        dispatch_cursor = coalesce(${result.last_id}::uuid, dispatch_cursor),
        recipient_count = recipient_count + ${result.inserted},
        dispatched_at = coalesce(dispatched_at, now()),
        updated_at = now()
      where id = ${input.campaignId}
      returning status`)
    return {
      kind: 'batch',
      inserted: result.inserted,
      excluded: result.excluded,
      done,
      endedEmpty: updated?.status === 'sent',
    }
  })
}

/**
 * The advisory lock one completion pass holds for its transaction: passes that would overlap (every
 * worker process runs the dispatcher, three system jobs at a time each) skip instead of probing the
 * same campaigns side by side.
 */
export const COMPLETION_LOCK_KEY = 0x66_6c_63_01

/**
 * One slice of the completion check: the next `limit` campaigns `sending` after `after` (by id; from
 * the first when null) are probed, and those whose every message is terminal become `sent`. Held
 * mail is not terminal: it goes out when its domain verifies again, so a campaign with held messages
 * stays `sending`. Each probe is served by the tenant/campaign/status index.
 *
 * Bounded so that its cost does not grow with the campaigns sending: with ten thousand small ones
 * sending at once, probing all of them every second took ~0.9 s of a core per pass (index probes),
 * and the passes of several processes ran side by side. `next` is where the next slice starts (null:
 * from the first again); `busy`: another pass held the lock, nothing was probed.
 */
export async function completeFinishedCampaigns(
  db: Database,
  input: { after: string | null; limit: number },
): Promise<CompletionSlice> {
  const [row] = await db.transaction(async (tx) => {
    // Probes by index whatever the statistics say: analyzed while one big campaign was all of
    // `messages`, they made every campaign look like it owned every row, and the planner probed each
    // campaign with a sequential scan that stopped at its first match (EXPLAIN ANALYZE of the check
    // over 2,375 small campaigns: 163 s; by index, 0.9 s for 10,001). For this transaction only.
    await tx.execute(sql`select set_config('enable_seqscan', 'off', true)`)
    return tx.execute<{
      held: boolean
      checked: number
      last_id: string | null
      finished: Array<{ id: string; tenant_id: string }>
    }>(sql`
    with lock as materialized (select pg_try_advisory_xact_lock(${COMPLETION_LOCK_KEY}) as held),
    checked as materialized (
      select c.id, c.tenant_id from campaigns c, lock
      where lock.held and c.status = 'sending' and (${input.after}::uuid is null or c.id > ${input.after}::uuid)
      order by c.id
      limit ${input.limit}
    ),
    -- Probed over the slice alone (materialized: as a filter of the update, the planner ran the probes
    -- over every campaign sending before it joined the slice).
    done as materialized (
      select k.id from checked k
      -- One probe per unfinished status, each on the whole (tenant_id, campaign_id, status) key: with
      -- \`status in (…)\` the planner walked the campaign's every row and filtered them (10,000 rows
      -- per pass of a 10,000-mail campaign, ~1,000 rows read per email sent, nearly all PostgreSQL
      -- read in \`bench:throughput\`).
      where not exists (
        select 1 from (values ('pending'), ('queued'), ('sending'), ('held')) as unfinished(status)
        cross join lateral (
          select 1 from messages m
          where m.tenant_id = k.tenant_id and m.campaign_id = k.id and m.status = unfinished.status
          limit 1) found)
    ),
    finished as (
      update campaigns c set status = 'sent', completed_at = now(), updated_at = now()
      -- By primary key (joined to \`done\`, the planner walked every campaign sending).
      where c.id = any(array(select id from done)) and c.status = 'sending'
      returning c.id, c.tenant_id
    )
    select (select held from lock) as held,
      (select count(*) from checked)::int as checked,
      (select id from checked order by id desc limit 1) as last_id,
      coalesce((select json_agg(json_build_object('id', id, 'tenant_id', tenant_id)) from finished), '[]'::json) as finished`)
  })
  if (!row) throw new Error('campaign completion returned no summary row')
  return {
    completed: row.finished.map((campaign) => ({ id: campaign.id, tenantId: campaign.tenant_id })),
    // Skipped: the same slice next time. A short slice reached the last campaign: the next starts
    // from the first.
    next: !row.held ? input.after : row.checked === input.limit ? row.last_id : null,
    busy: !row.held,
  }
}
