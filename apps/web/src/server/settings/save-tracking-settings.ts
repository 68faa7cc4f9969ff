import type { AuditActor } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { saveTrackingSettings, type TrackingSettings } from '@fairlane/db/queries/tracking-settings'
import { audited } from '../audit/record-audit'

/** Saves the tenant's tracking switches from the settings form, audited in the same transaction. */
export async function saveTrackingSettingsForm(
  input: { tenantId: string; values: TrackingSettings; actor: AuditActor },
  deps: { db: Database },
): Promise<void> {
  const { tenantId, values, actor } = input
  await saveTrackingSettings(
    deps.db,
    { tenantId, ...values },
    { actor, ...audited.trackingSaved(tenantId, values) },
  )
}
