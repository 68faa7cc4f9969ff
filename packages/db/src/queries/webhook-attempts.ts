import { type AttemptDecision, type AttemptResult, WEBHOOK_CHANNEL } from '@fairlane/core'
import { sql } from 'drizzle-orm'
import type { Database, Transaction } from '../client'

/**
 * One attempt's record, in one transaction: its `webhook_attempts` row, its delivery's new state and
 * its endpoint's health, all only while the attempt still holds its lease (same attempt number, still
 * pending), so an attempt whose lease ran out and was taken again cannot write over the newer one.
 * Returns false when the lease was lost (nothing written).
 */
export function recordWebhookAttempt(
  db: Database,
  input: {
    tenantId: string
    deliveryId: string
    endpointId: string
    attempt: number
    result: AttemptResult
    decision: AttemptDecision
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { result, decision } = input
    const delivery = decision.delivery
    const statusCode = result.statusCode ?? null
    const error = result.ok ? null : result.error
    const excerpt = result.excerpt ?? null
    const updated = await tx.execute(sql`
      with updated as (
        update webhook_deliveries
        set status = ${delivery.status},
          next_attempt_at = ${delivery.status === 'pending' ? sql`${delivery.nextAttemptAt.toISOString()}::timestamptz` : sql`next_attempt_at`},
          locked_until = null, last_attempt_at = now(), last_status_code = ${statusCode}, last_error = ${error},
          last_response = ${excerpt},
          delivered_at = case when ${delivery.status} = 'delivered' then now() else delivered_at end,
          failed_at = case when ${delivery.status} = 'failed' then now() else null end
        where tenant_id = ${input.tenantId} and id = ${input.deliveryId} and attempts = ${input.attempt}
          and status = 'pending'
        returning id, tenant_id)
      insert into webhook_attempts (tenant_id, delivery_id, duration_ms, status_code, error, response_excerpt)
      select tenant_id, id, ${Math.round(result.durationMs)}, ${statusCode}, ${error}, ${excerpt} from updated
      returning delivery_id`)
    if (updated.length === 0) return false
    await recordEndpointHealth(tx, input)
    return true
  })
}

async function recordEndpointHealth(
  tx: Transaction,
  input: { tenantId: string; endpointId: string; decision: AttemptDecision },
): Promise<void> {
  const endpoint = input.decision.endpoint
  const where = sql`tenant_id = ${input.tenantId} and id = ${input.endpointId}`
  if (endpoint.health === 'answering') {
    // Written at most once a second while healthy: a busy endpoint's successes would otherwise all
    // queue on this one row's lock. `no key update`: the outbox trigger's inserts (their foreign key
    // check takes a key-share lock on this row) are never blocked by it. A slow answer ends a park as
    // any answer does but leaves `parked_until` in the past (now): the relay then runs the endpoint
    // one attempt at a time, as it runs a probe, until a quick answer clears it.
    // Nothing to write when parked_until already says what this answer would (the once-a-second rule).
    const alreadySo = endpoint.slow ? sql`parked_until is not null` : sql`parked_until is null`
    const [row] = await tx.execute<{ was_parked: boolean }>(sql`
      with old as (
        -- Parked by failures (a slowed endpoint is never): its waiting deliveries become due now.
        select id, park_level > 0 as was_parked
        from webhook_endpoints
        where ${where} and (park_level > 0 or not (${alreadySo}) or parked_until > now()
          or failing_since is not null or last_success_at is null
          or last_success_at < now() - interval '1 second')
        for no key update)
      update webhook_endpoints e
      set last_success_at = now(), failing_since = null, park_level = 0,
        parked_until = ${endpoint.slow ? sql`now()` : sql`null`}
      from old
      where e.id = old.id
      returning old.was_parked`)
    // After a park the deliveries that waited (and those whose retries were pushed out by the
    // failures that parked it) are due now: the endpoint answers again.
    if (row?.was_parked) {
      await tx.execute(sql`
        update webhook_deliveries set next_attempt_at = now()
        where endpoint_id = ${input.endpointId} and status = 'pending' and next_attempt_at > now()`)
      await tx.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`)
    }
    return
  }
  await tx.execute(sql`
    update webhook_endpoints set failing_since = coalesce(failing_since, now()) where ${where}`)
  if (endpoint.park) {
    // Only one park at a time: the attempts that were already in flight when it began (and time out
    // with it) neither lengthen it nor raise its level.
    await tx.execute(sql`
      update webhook_endpoints
      set parked_until = ${endpoint.park.until.toISOString()}::timestamptz, park_level = ${endpoint.park.level}
      where ${where} and (parked_until is null or parked_until <= now())`)
  }
}
