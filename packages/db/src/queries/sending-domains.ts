import {
  type AuditOf,
  type AuditRecord,
  type DeleteOutcome,
  type DkimRotationState,
  type DomainChange,
  type DomainInsert,
  type DomainRecordCheck,
  type DomainStore,
  MESSAGE_PUBLISH_TOPIC,
  type NewDkimKey,
  type StoredDomain,
} from '@fairlane/core'
import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm'
import type { Executor, Transaction } from '../client'
import {
  dkimKeys,
  messages,
  outbox,
  type SendingDomain,
  type StoredDkimRotation,
  type StoredRecordCheck,
  sendingDomains,
  tenants,
} from '../schema'
import { notifyOutbox } from './outbox'
import { insertAuditRecord } from './tenant-audit'
import { insertWebhookDeliveries } from './webhook-outbox'

/**
 * Sending domains and their DKIM keys. Reads for the use cases never select `private_key_ciphertext`,
 * so no API answer can carry it; only the worker's signer reads it (`findSigningDomain`, sender-signing.ts) and
 * decrypts it in memory.
 */

const OPEN_STATUSES = ['pending', 'scheduled', 'queued', 'sending', 'held'] as const

export async function findSendingDomain(
  db: Executor,
  query: { tenantId: string; domainId: string },
): Promise<StoredDomain | null> {
  const [row] = await db
    .select()
    .from(sendingDomains)
    .where(and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.id, query.domainId)))
  return row ? withKeys(db, row) : null
}

export async function listSendingDomains(db: Executor, query: { tenantId: string }): Promise<StoredDomain[]> {
  const rows = await db
    .select()
    .from(sendingDomains)
    .where(eq(sendingDomains.tenantId, query.tenantId))
    .orderBy(asc(sendingDomains.name))
  if (rows.length === 0) return []
  const keys = await db
    .select({
      domainId: dkimKeys.domainId,
      selector: dkimKeys.selector,
      publicKey: dkimKeys.publicKey,
      createdAt: dkimKeys.createdAt,
    })
    .from(dkimKeys)
    .where(
      and(
        eq(dkimKeys.tenantId, query.tenantId),
        inArray(
          dkimKeys.domainId,
          rows.map((row) => row.id),
        ),
      ),
    )
    .orderBy(asc(dkimKeys.createdAt))
  return rows.map((row) =>
    toDomain(
      row,
      keys.filter((key) => key.domainId === row.id),
    ),
  )
}

/**
 * The domain and its first key in one transaction. A transaction-level advisory lock on the name
 * serialises adds of one name across tenants, so "does another tenant have it?" and the insert
 * cannot interleave: of two tenants adding it at once, the second gets the ownership token.
 */
export function insertSendingDomain(
  db: Executor,
  input: {
    tenantId: string
    name: string
    returnPathLabel: string
    ownershipToken: string
    dkim: DkimRotationState
    key: NewDkimKey
    nextCheckAt: Date
  },
  audit?: AuditOf<StoredDomain>,
): Promise<StoredDomain | null> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`sending-domain:${input.name}`}, 0))`,
    )
    const [other] = await tx
      .select({ id: sendingDomains.id })
      .from(sendingDomains)
      .where(and(eq(sendingDomains.name, input.name), ne(sendingDomains.tenantId, input.tenantId)))
      .limit(1)
    const [row] = await tx
      .insert(sendingDomains)
      .values({
        tenantId: input.tenantId,
        name: input.name,
        returnPathLabel: input.returnPathLabel,
        ownershipToken: other ? input.ownershipToken : null,
        dkim: toStoredDkim(input.dkim),
        nextCheckAt: input.nextCheckAt,
      })
      .onConflictDoNothing({ target: [sendingDomains.tenantId, sendingDomains.name] })
      .returning()
    if (!row) return null
    await insertKey(tx, { tenantId: input.tenantId, domainId: row.id, key: input.key })
    const domain = await withKeys(tx, row)
    if (audit) await insertAuditRecord(tx, { tenantId: input.tenantId, record: audit(domain) })
    return domain
  })
}

/** How many sending domains the tenant holds (MAX_DOMAINS_PER_TENANT bounds it). */
export async function countSendingDomains(db: Executor, query: { tenantId: string }): Promise<number> {
  const [row] = await db
    .select({ count: count() })
    .from(sendingDomains)
    .where(eq(sendingDomains.tenantId, query.tenantId))
  return row?.count ?? 0
}

/**
 * `insertSendingDomain` unless the tenant already holds `maxDomains`: the count and the insert run
 * under a lock on the tenant's row (`no key update`: its messages' foreign keys still pass), so
 * concurrent adds take turns and the cap holds exactly.
 */
export function insertSendingDomainWithinLimit(
  db: Executor,
  input: Parameters<typeof insertSendingDomain>[1] & { maxDomains: number },
  audit?: AuditOf<StoredDomain>,
): Promise<DomainInsert> {
  const { maxDomains, ...domain } = input
  return db.transaction(async (tx) => {
    await tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, input.tenantId))
      .for('no key update')
    const held = await countSendingDomains(tx, { tenantId: input.tenantId })
    if (held >= maxDomains) return { kind: 'limit', count: held }
    const created = await insertSendingDomain(tx, domain, audit)
    return created === null ? { kind: 'name_taken' } : { kind: 'created', domain: created }
  })
}

/** See `DomainStore.updateDomain`: the row locked FOR UPDATE, the change and held mail's release in one transaction. */
export function updateSendingDomain(
  db: Executor,
  query: { tenantId: string; domainId: string },
  change: (current: StoredDomain) => DomainChange | null,
  audit?: AuditOf<StoredDomain>,
): Promise<{ domain: StoredDomain; releasedMessages: number } | null> {
  return db.transaction(async (tx) => {
    const where = and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.id, query.domainId))
    const [row] = await tx.select().from(sendingDomains).where(where).for('update')
    if (!row) return null
    const current = await withKeys(tx, row)
    const next = change(current)
    if (next === null) return { domain: current, releasedMessages: 0 }
    if (next.addKey) await insertKey(tx, { ...query, key: next.addKey })
    if (next.removeKeys && next.removeKeys.length > 0) {
      await tx
        .delete(dkimKeys)
        .where(
          and(
            eq(dkimKeys.tenantId, query.tenantId),
            eq(dkimKeys.domainId, query.domainId),
            inArray(dkimKeys.selector, next.removeKeys),
          ),
        )
    }
    const [updated] = await tx
      .update(sendingDomains)
      .set({
        ...(next.status !== undefined ? { status: next.status } : {}),
        ...(next.dkim !== undefined ? { dkim: toStoredDkim(next.dkim) } : {}),
        ...(next.checks !== undefined ? { checks: next.checks.map(toStoredCheck) } : {}),
        ...(next.failureReason !== undefined ? { failureReason: next.failureReason } : {}),
        ...(next.checkCount !== undefined ? { checkCount: next.checkCount } : {}),
        ...(next.verifiedAt !== undefined ? { verifiedAt: next.verifiedAt } : {}),
        ...(next.lastCheckedAt !== undefined ? { lastCheckedAt: next.lastCheckedAt } : {}),
        ...(next.nextCheckAt !== undefined ? { nextCheckAt: next.nextCheckAt } : {}),
        updatedAt: new Date(),
      })
      .where(where)
      .returning()
    const releasedMessages = next.releaseHeld ? await releaseHeldMessages(tx, query) : 0
    if (updated && updated.status !== row.status) await reportDomainStatus(tx, updated)
    const domain = await withKeys(tx, updated ?? row)
    if (audit) await insertAuditRecord(tx, { tenantId: query.tenantId, record: audit(domain) })
    return { domain, releasedMessages }
  })
}

/**
 * `domain.verified` / `domain.failed` to the tenant's webhook endpoints, in the transaction that
 * changed the status, so the webhook and the change are one fact (the outbox rule of every event).
 */
async function reportDomainStatus(
  tx: Transaction,
  domain: typeof sendingDomains.$inferSelect,
): Promise<void> {
  if (domain.status !== 'verified' && domain.status !== 'failed') return
  await insertWebhookDeliveries(tx, {
    tenantId: domain.tenantId,
    type: domain.status === 'verified' ? 'domain.verified' : 'domain.failed',
    data: {
      domainId: domain.id,
      name: domain.name,
      status: domain.status,
      ...(domain.status === 'failed' && domain.failureReason ? { failureReason: domain.failureReason } : {}),
    },
  })
}

/**
 * Puts a domain's held messages back on the send path, in the caller's transaction: campaign (bulk)
 * mail back to `pending`, where the pacer releases it at the tenant's pace; API mail to `queued`
 * with a `message.publish` outbox row, as accepted mail is. Each gets a new generation, so its job
 * id differs from the job that found it unsignable (BullMQ may still keep that one).
 */
export async function releaseHeldMessages(
  tx: Transaction,
  query: { tenantId: string; domainId: string },
): Promise<number> {
  const released = await tx.execute<{ id: string }>(sql`
    with released as (
      update ${messages} m
      set status = case when m.lane = 'bulk' then 'pending' else 'queued' end,
          queued_at = case when m.lane = 'bulk' then null else now() end,
          generation = m.generation + 1,
          updated_at = now()
      where m.tenant_id = ${query.tenantId}
        and m.sending_domain_id = ${query.domainId}
        and m.status = 'held'
      returning m.id, m.tenant_id, m.lane, m.generation
    ), published as (
      insert into ${outbox} (tenant_id, topic, payload)
      select r.tenant_id, ${MESSAGE_PUBLISH_TOPIC},
        jsonb_build_object('v', 1, 'messageId', r.id, 'tenantId', r.tenant_id, 'lane', r.lane, 'generation', r.generation)
      from released r
      where r.lane <> 'bulk'
      returning 1
    )
    select id from released`)
  if (released.length > 0) await notifyOutbox(tx)
  return released.length
}

/** Open mail from the domain (pending, queued, sending, held). */
export async function countOpenDomainMessages(
  db: Executor,
  query: { tenantId: string; domainId: string },
): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(messages)
    .where(
      and(
        eq(messages.tenantId, query.tenantId),
        eq(messages.sendingDomainId, query.domainId),
        inArray(messages.status, [...OPEN_STATUSES]),
      ),
    )
  return row?.count ?? 0
}

/**
 * Deletes the domain (its keys cascade) unless mail from it is open. The row is locked first: a
 * message inserted with this domain's id takes a key-share lock on it (the foreign key), so it either
 * commits before the count sees it or waits and then fails on the deleted row.
 */
export function deleteSendingDomain(
  db: Executor,
  query: { tenantId: string; domainId: string },
  audit?: AuditRecord,
): Promise<DeleteOutcome | null> {
  return db.transaction(async (tx) => {
    const where = and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.id, query.domainId))
    const [row] = await tx.select({ id: sendingDomains.id }).from(sendingDomains).where(where).for('update')
    if (!row) return null
    const openMessages = await countOpenDomainMessages(tx, query)
    if (openMessages > 0) return { deleted: false, openMessages }
    await tx.delete(sendingDomains).where(where)
    if (audit) await insertAuditRecord(tx, { tenantId: query.tenantId, record: audit })
    return { deleted: true, openMessages: 0 }
  })
}

/**
 * See `DomainStore.claimDueDomains`: every tenant's due domains taken in turns — each tenant's oldest
 * due first, then each one's second, … — at most `perTenant` of one tenant per claim, so a tenant with
 * thousands due never keeps another's one due domain waiting behind them. The ranking reads every due
 * row (`sending_domains_next_check_idx`), bounded by MAX_DOMAINS_PER_TENANT per tenant; SKIP LOCKED
 * on the domain rows alone lets concurrent claimers pass each other, and the re-checked due condition
 * drops a row another claimer leased meanwhile.
 */
export async function claimDueSendingDomains(
  db: Executor,
  input: { limit: number; leaseMs: number; perTenant?: number },
): Promise<{ tenantId: string; domainId: string }[]> {
  const perTenant = input.perTenant ?? input.limit
  const rows = await db.execute<{ id: string; tenant_id: string }>(sql`
    update ${sendingDomains} d
    set next_check_at = now() + ${Math.ceil(input.leaseMs)}::int * interval '1 millisecond'
    where d.id in (
      select candidate.id
      from ${sendingDomains} candidate
      join (
        select id, next_check_at,
          row_number() over (partition by tenant_id order by next_check_at, id) as turn
        from ${sendingDomains}
        where next_check_at is not null and next_check_at <= now()
      ) due on due.id = candidate.id
      where due.turn <= ${perTenant} and candidate.next_check_at <= now()
      order by due.turn, due.next_check_at, due.id
      limit ${input.limit}
      for update of candidate skip locked)
    returning d.id, d.tenant_id`)
  return rows.map((row) => ({ tenantId: row.tenant_id, domainId: row.id }))
}

export function createDomainStore(db: Executor): DomainStore {
  return {
    insertDomain: (input, audit) => insertSendingDomainWithinLimit(db, input, audit),
    findDomain: (query) => findSendingDomain(db, query),
    countDomains: (query) => countSendingDomains(db, query),
    listDomains: (query) => listSendingDomains(db, query),
    updateDomain: (query, change, audit) => updateSendingDomain(db, query, change, audit),
    deleteDomain: (query, audit) => deleteSendingDomain(db, query, audit),
    claimDueDomains: (input) => claimDueSendingDomains(db, input),
  }
}

async function insertKey(
  db: Executor,
  input: { tenantId: string; domainId: string; key: NewDkimKey },
): Promise<void> {
  await db.insert(dkimKeys).values({
    tenantId: input.tenantId,
    domainId: input.domainId,
    selector: input.key.selector,
    publicKey: input.key.publicKey,
    privateKeyCiphertext: input.key.privateKeyCiphertext,
    encryptionKeyId: input.key.encryptionKeyId,
  })
}

async function withKeys(db: Executor, row: SendingDomain): Promise<StoredDomain> {
  const keys = await db
    .select({ selector: dkimKeys.selector, publicKey: dkimKeys.publicKey, createdAt: dkimKeys.createdAt })
    .from(dkimKeys)
    .where(and(eq(dkimKeys.tenantId, row.tenantId), eq(dkimKeys.domainId, row.id)))
    .orderBy(asc(dkimKeys.createdAt))
  return toDomain(row, keys)
}

function toDomain(
  row: SendingDomain,
  keys: readonly { selector: string; publicKey: string; createdAt: Date }[],
): StoredDomain {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    status: row.status,
    returnPathLabel: row.returnPathLabel,
    ownershipToken: row.ownershipToken,
    dkim: fromStoredDkim(row.dkim),
    keys: keys.map((key) => ({ selector: key.selector, publicKey: key.publicKey, createdAt: key.createdAt })),
    checks: row.checks.map(fromStoredCheck),
    failureReason: row.failureReason,
    checkCount: row.checkCount,
    verifiedAt: row.verifiedAt,
    lastCheckedAt: row.lastCheckedAt,
    nextCheckAt: row.nextCheckAt,
    createdAt: row.createdAt,
  }
}

export function fromStoredDkim(stored: StoredDkimRotation): DkimRotationState {
  const key = (entry: { selector: string; createdAt: string } | null) =>
    entry === null ? null : { selector: entry.selector, createdAt: new Date(entry.createdAt) }
  return {
    active: key(stored.active),
    pending: key(stored.pending),
    retired: stored.retired.map((entry) => ({
      selector: entry.selector,
      retiredAt: new Date(entry.retiredAt),
      removableAt: new Date(entry.removableAt),
    })),
    activeFailedChecks: stored.activeFailedChecks,
  }
}

function toStoredDkim(state: DkimRotationState): StoredDkimRotation {
  const key = (entry: { selector: string; createdAt: Date } | null) =>
    entry === null ? null : { selector: entry.selector, createdAt: entry.createdAt.toISOString() }
  return {
    active: key(state.active),
    pending: key(state.pending),
    retired: state.retired.map((entry) => ({
      selector: entry.selector,
      retiredAt: entry.retiredAt.toISOString(),
      removableAt: entry.removableAt.toISOString(),
    })),
    activeFailedChecks: state.activeFailedChecks,
  }
}

function fromStoredCheck(stored: StoredRecordCheck): DomainRecordCheck {
  return { ...stored, checkedAt: new Date(stored.checkedAt) }
}

function toStoredCheck(check: DomainRecordCheck): StoredRecordCheck {
  return { ...check, checkedAt: check.checkedAt.toISOString() }
}

/** The names of the tenant's verified domains, A to Z (the API keys page's domain choices). */
export async function listVerifiedDomainNames(db: Executor, query: { tenantId: string }): Promise<string[]> {
  const rows = await db
    .select({ name: sendingDomains.name })
    .from(sendingDomains)
    .where(and(eq(sendingDomains.tenantId, query.tenantId), eq(sendingDomains.status, 'verified')))
    .orderBy(asc(sendingDomains.name))
  return rows.map((row) => row.name)
}
