import {
  type CampaignUsingSegment,
  parseSegmentFilter,
  type SegmentFilter,
  type SegmentStore,
  type SegmentView,
} from '@fairlane/core'
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { campaigns, segments } from '../schema'
import { isUniqueViolation } from './contacts'

/** Campaigns that will still resolve their segment: deleting it under them would change what they send. */
const RESOLVING_STATUSES = ['scheduled', 'dispatching', 'sending'] as const

const live = (input: { tenantId: string; segmentId: string }) =>
  and(eq(segments.tenantId, input.tenantId), eq(segments.id, input.segmentId), isNull(segments.deletedAt))

/** The tenant's segments (not deleted), by name. */
export async function listSegments(db: Executor, input: { tenantId: string }): Promise<SegmentView[]> {
  const rows = await db
    .select({ id: segments.id, name: segments.name, filter: segments.filter, createdAt: segments.createdAt })
    .from(segments)
    .where(and(eq(segments.tenantId, input.tenantId), isNull(segments.deletedAt)))
    .orderBy(asc(segments.name))
  return rows.map((row) => ({ ...row, filter: parseSegmentFilter(row.filter) }))
}

/** One live segment; null for an unknown, deleted or another tenant's id. */
export async function getSegment(
  db: Executor,
  input: { tenantId: string; segmentId: string },
): Promise<SegmentView | null> {
  const [row] = await db
    .select({ id: segments.id, name: segments.name, filter: segments.filter, createdAt: segments.createdAt })
    .from(segments)
    .where(live(input))
  return row ? { ...row, filter: parseSegmentFilter(row.filter) } : null
}

/**
 * A segment's filter, deleted or not: a campaign scheduled to it before the delete was refused still
 * resolves it (and a sent campaign's page still counts it). Null for another tenant's id.
 */
export async function findSegmentFilter(
  db: Executor,
  input: { tenantId: string; segmentId: string },
): Promise<SegmentFilter | null> {
  const [row] = await db
    .select({ filter: segments.filter })
    .from(segments)
    .where(and(eq(segments.tenantId, input.tenantId), eq(segments.id, input.segmentId)))
  return row ? parseSegmentFilter(row.filter) : null
}

/** Whether the live segment exists; with `lock`, holds it (FOR SHARE) until the transaction ends. */
export async function segmentExists(
  db: Executor,
  input: { tenantId: string; segmentId: string; lock?: boolean },
): Promise<boolean> {
  const query = db.select({ id: segments.id }).from(segments).where(live(input))
  const rows = input.lock ? await query.for('share') : await query
  return rows.length > 0
}

/** Campaigns not yet sent that resolve the segment at their send time (they block its deletion). */
export async function campaignsUsingSegment(
  db: Executor,
  input: { tenantId: string; segmentId: string },
): Promise<CampaignUsingSegment[]> {
  return db
    .select({ id: campaigns.id, name: campaigns.name, status: campaigns.status })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.tenantId, input.tenantId),
        eq(campaigns.segmentId, input.segmentId),
        inArray(campaigns.status, [...RESOLVING_STATUSES]),
      ),
    )
    .orderBy(asc(campaigns.name))
}

/** The SegmentStore port of `@fairlane/core`'s segment use cases, on this database. */
export function createSegmentStore(db: Executor): SegmentStore {
  return {
    async insertSegment(input) {
      try {
        const [row] = await db.insert(segments).values(input).returning({ id: segments.id })
        if (!row) throw new Error('insert into segments returned no row')
        return { kind: 'created', id: row.id }
      } catch (error) {
        if (isUniqueViolation(error)) return { kind: 'name_taken' }
        throw error
      }
    },
    async renameSegment(input) {
      try {
        const rows = await db
          .update(segments)
          .set({ name: input.name, updatedAt: new Date() })
          .where(live(input))
          .returning({ id: segments.id })
        return rows.length > 0 ? 'renamed' : 'not_found'
      } catch (error) {
        if (isUniqueViolation(error)) return 'name_taken'
        throw error
      }
    },
    deleteSegment: (input) =>
      db.transaction(async (tx) => {
        // FOR UPDATE waits for (and then blocks) a campaign write holding the row FOR SHARE, so the
        // check below sees every campaign scheduled to it before, and none can be scheduled after.
        const [segment] = await tx.select({ id: segments.id }).from(segments).where(live(input)).for('update')
        if (!segment) return { kind: 'not_found' as const }
        const using = await campaignsUsingSegment(tx, input)
        if (using.length > 0) return { kind: 'in_use' as const, campaigns: using }
        await tx.update(segments).set({ deletedAt: sql`now()`, updatedAt: sql`now()` }).where(live(input))
        return { kind: 'deleted' as const }
      }),
  }
}
