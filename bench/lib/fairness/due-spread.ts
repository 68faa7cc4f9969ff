import type { Sql } from 'postgres'

/**
 * When the many-tenants mode's campaigns come due. All at once (`spreadSeconds` 0) is the floor
 * measurement: ten thousand first sends are ten thousand SMTP transactions, ~20 s on this machine
 * whatever the pacer does. Spread (`--due-spread-seconds 60`: 10,000 due over 60 s, ≈ 167/s, under
 * the machine's ~490 mails/s, beside Big's backlog) asks what the goal can mean here: a tenant that
 * becomes active gets its first turn in the next tick, however many tenants are active.
 *
 * Small tenant `mt-s-<n>` (n from 1) is due at `startMs + (n − 1) / tenants × spread`; Big at `startMs`.
 */
export interface DueSchedule {
  startMs: number
  tenants: number
  spreadSeconds: number
}

export function dueAtOf(schedule: DueSchedule, n: number): number {
  return schedule.startMs + ((n - 1) / schedule.tenants) * schedule.spreadSeconds * 1000
}

/** The small tenants (1-based, inclusive range) due at or before `atMs`: those up to this n. */
export function lastDueBy(schedule: DueSchedule, atMs: number): number {
  if (schedule.spreadSeconds <= 0) return schedule.tenants
  const elapsedMs = atMs - schedule.startMs
  if (elapsedMs < 0) return 0
  const n = Math.floor((elapsedMs / (schedule.spreadSeconds * 1000)) * schedule.tenants) + 1
  return Math.min(schedule.tenants, n)
}

/**
 * The campaigns' send times set for the real dispatcher: Big and small tenant 1 one second from now,
 * the rest spread after. Returns the schedule read back from the rows (the database's clock).
 */
export async function scheduleDue(
  sql: Sql,
  input: { bigCampaign: string; tenants: number; spreadSeconds: number },
): Promise<DueSchedule> {
  const [start] = await sql<{ at: Date }[]>`select now() + interval '1 second' as at`
  if (!start) throw new Error('no clock reading')
  const [big] = await sql<{ at: Date }[]>`
    update campaigns set send_at = ${start.at} where id = ${input.bigCampaign} returning send_at as at`
  if (!big) throw new Error(`Big's campaign ${input.bigCampaign} is gone`)
  const spreadMs = input.spreadSeconds * 1000
  const moved = await sql`
    update campaigns c
    set send_at = ${start.at}::timestamptz
      + ((substring(t.name from 6)::int - 1)::float8 / ${input.tenants} * ${spreadMs}) * interval '1 millisecond'
    from tenants t
    where t.id = c.tenant_id and t.name like 'mt-s-%'`
  if (moved.count !== input.tenants) {
    throw new Error(`expected ${input.tenants} small campaigns to schedule, found ${moved.count}`)
  }
  return { startMs: start.at.getTime(), tenants: input.tenants, spreadSeconds: input.spreadSeconds }
}

/**
 * `--seed-pending`: the audiences of the bench campaigns picked by `which` become pending bulk rows
 * in one statement (as if dispatched at once), their campaigns `sending`.
 */
export async function dispatchPending(
  sql: Sql,
  which: { kind: 'all' } | { kind: 'big' } | { kind: 'small'; ids: string[] },
): Promise<void> {
  const tenants =
    which.kind === 'all'
      ? sql`select id from tenants where name like 'mt-%'`
      : which.kind === 'big'
        ? sql`select id from tenants where name = 'mt-big'`
        : sql`select unnest(${which.ids}::uuid[])`
  await sql`
    with dispatched as (
      update campaigns c set status = 'sending', send_at = now(), dispatched_at = now(),
        recipient_count = (select count(*) from list_members lm where lm.list_id = c.list_id)
      where c.tenant_id in (${tenants})
      returning c.id, c.tenant_id, c.list_id
    )
    insert into messages (tenant_id, campaign_id, contact_id, lane, status, to_address)
    select d.tenant_id, d.id, ct.id, 'bulk', 'pending', ct.email
    from dispatched d
    join list_members lm on lm.list_id = d.list_id
    join contacts ct on ct.id = lm.contact_id`
}

/**
 * `--seed-pending` with a spread (Big's rows already written, `makeDue`): every `sliceMs` the small
 * tenants that came due meanwhile, each slice one statement. A tenant's rows are pending up to one
 * slice (plus the statement) after its due time; the result's first sends are counted from the due
 * time, so that lag is in them, not hidden.
 */
export async function dispatchPendingSpread(
  sql: Sql,
  schedule: DueSchedule,
  /** The small tenants' ids by bench index (1-based, as `seedSmallTenants` returns them). */
  smallIds: readonly string[],
  options: { sliceMs: number; stopped: () => boolean },
): Promise<void> {
  let done = 0
  while (done < schedule.tenants && !options.stopped()) {
    const upTo = lastDueBy(schedule, Date.now())
    if (upTo > done) {
      // By id: picking them by name was a scan of every tenant per slice.
      await dispatchPending(sql, { kind: 'small', ids: smallIds.slice(done + 1, upTo + 1) })
      done = upTo
    }
    const nextDueMs = dueAtOf(schedule, done + 1)
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Math.min(options.sliceMs, nextDueMs - Date.now()))),
    )
  }
}
