import type { AuditRecord } from '@fairlane/core'
import { eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { tenants } from '../schema'
import { insertAuditRecord } from './tenant-audit'

/** The tenant's tracking settings: new campaigns' defaults, and the privacy switch over everything. */
export interface TrackingSettings {
  trackOpens: boolean
  trackClicks: boolean
  /** "No tracking": nothing of this tenant's is tracked, whatever a campaign or message asks. */
  trackingDisabled: boolean
}

export async function findTrackingSettings(
  db: Executor,
  query: { tenantId: string },
): Promise<TrackingSettings> {
  const [row] = await db
    .select({
      trackOpens: tenants.trackOpens,
      trackClicks: tenants.trackClicks,
      trackingDisabled: tenants.trackingDisabled,
    })
    .from(tenants)
    .where(eq(tenants.id, query.tenantId))
  return row ?? { trackOpens: false, trackClicks: false, trackingDisabled: false }
}

/** Saves the settings, and writes `audit` in the same transaction when given. */
export async function saveTrackingSettings(
  db: Executor,
  input: TrackingSettings & { tenantId: string },
  audit?: AuditRecord,
): Promise<void> {
  const { tenantId, ...settings } = input
  await db.transaction(async (tx) => {
    await tx
      .update(tenants)
      .set({ ...settings, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId))
    if (audit) await insertAuditRecord(tx, { tenantId, record: audit })
  })
}
