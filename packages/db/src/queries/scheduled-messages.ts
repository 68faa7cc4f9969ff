import type { MessageCancelStore, MessageStatus, ScheduledReleaseStore } from '@fairlane/core'
import {
  type CancelOutcome,
  MESSAGE_PUBLISH_TOPIC,
  OUTBOX_CHANNEL,
  type ReleasedMessage,
} from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { messageClaims, messageEvents, messages, outbox } from '../schema'
import { claimed, visibleStatus } from './message-claims'

/**
 * The scheduled-send releaser's statement: due rows, oldest first, locked with SKIP LOCKED (another
 * worker's releaser takes the next ones, never the same), turned `queued` with their outbox row, and the
 * relay woken; all one statement, so a row is never `queued` without its outbox row. The relay writes the
 * `queued` event when it publishes, as for any accepted mail. `now()` is the database's clock, so
 * workers' clocks never disagree about what is due. Served by `messages_scheduled_due_idx`.
 */
export async function releaseDueScheduled(
  db: Executor,
  query: { limit: number },
): Promise<ReleasedMessage[]> {
  const rows = await db.execute<{ id: string; tenant_id: string; lane: ReleasedMessage['lane'] }>(sql`
    with due as (
      select id from ${messages}
      where status = 'scheduled' and send_at <= now()
      order by send_at, id
      limit ${query.limit}
      for update skip locked
    ), released as (
      update ${messages} m set status = 'queued', queued_at = now(), updated_at = now()
      from due where m.id = due.id and m.status = 'scheduled'
      returning m.id, m.tenant_id, m.lane, m.generation, m.send_at
    ), event as (
      insert into ${outbox} (tenant_id, topic, payload)
      select tenant_id, ${MESSAGE_PUBLISH_TOPIC},
        jsonb_build_object('v', 1, 'messageId', id, 'tenantId', tenant_id, 'lane', lane, 'generation', generation)
      from released order by send_at, id
    )
    select id, tenant_id, lane, pg_notify(${OUTBOX_CHANNEL}, '') from released order by send_at, id`)
  return rows.map((row) => ({ id: row.id, tenantId: row.tenant_id, lane: row.lane }))
}

export function createScheduledReleaseStore(db: Executor): ScheduledReleaseStore {
  return { releaseDue: (query) => releaseDueScheduled(db, query) }
}

/**
 * Cancel: only a row no attempt holds changes (the send's claim takes `queued` and `pending` rows,
 * so a job that comes later finds it `cancelled` and ends); the event is written only with the
 * change. Otherwise the row's status says why not (or no row: not this tenant's). The row is locked
 * first, in its own statement: a claim being made (it holds the row's lock until it commits) is
 * waited for, and the cancel's snapshot, taken after, sees it.
 */
export async function cancelOpenMessage(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<CancelOutcome> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`
      select 1 from ${messages}
      where id = ${query.messageId}::uuid and tenant_id = ${query.tenantId}::uuid
      for no key update`)
    return cancelLockedMessage(tx, query)
  })
}

async function cancelLockedMessage(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<CancelOutcome> {
  const [row] = await db.execute<{ cancelled: boolean; status: string | null }>(sql`
    with cancelled as (
      update ${messages} set status = 'cancelled', updated_at = now()
      where id = ${query.messageId}::uuid and tenant_id = ${query.tenantId}::uuid
        and status in ('scheduled', 'queued', 'pending', 'held')
        and not ${claimed()}
      returning id, tenant_id, status
    ), unreleased as (
      -- A cancelled message's release (its job will find it cancelled) ends with it.
      delete from ${messageClaims} c using cancelled where c.message_id = cancelled.id and c.lock_token is null
    ), event as (
      insert into ${messageEvents} (tenant_id, message_id, type, detail)
      select tenant_id, id, 'cancelled', '{}'::jsonb from cancelled
    )
    select exists (select 1 from cancelled) as cancelled,
      (select ${visibleStatus()} from ${messages}
        where id = ${query.messageId}::uuid and tenant_id = ${query.tenantId}::uuid) as status`)
  if (row?.cancelled) return { kind: 'cancelled' }
  if (!row?.status) return { kind: 'not-found' }
  return { kind: 'too-late', status: row.status as MessageStatus }
}

export function createMessageCancelStore(db: Executor): MessageCancelStore {
  return { cancel: (query) => cancelOpenMessage(db, query) }
}
