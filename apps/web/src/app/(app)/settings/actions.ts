'use server'

import { revalidatePath } from 'next/cache'
import { authorize } from '@/server/auth/session'
import { uiAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'
import {
  type SenderFormState,
  saveDefaultSenderForm,
  senderFormValuesOf,
} from '@/server/settings/default-sender'
import { saveTrackingSettingsForm } from '@/server/settings/save-tracking-settings'
import { type TrackingFormState, trackingSettingsOf } from '@/server/settings/tracking-settings'

/** Sets or clears the tenant's default sender (From and Reply-To of mail that names none). */
export async function saveDefaultSenderAction(
  _state: SenderFormState,
  form: FormData,
): Promise<SenderFormState> {
  const { session } = await authorize('settings.manage')
  const state = await saveDefaultSenderForm(
    { tenantId: session.tenantId, values: senderFormValuesOf(form), actor: await uiAuditActor(session) },
    { db: container().database.db },
  )
  if (state.saved) revalidatePath('/settings')
  return state
}

/** Saves the tenant's tracking defaults and its "no tracking" privacy switch. */
export async function saveTrackingSettingsAction(
  _state: TrackingFormState,
  form: FormData,
): Promise<TrackingFormState> {
  const { session } = await authorize('settings.manage')
  const values = trackingSettingsOf(form)
  await saveTrackingSettingsForm(
    { tenantId: session.tenantId, values, actor: await uiAuditActor(session) },
    { db: container().database.db },
  )
  revalidatePath('/settings')
  return { values, saved: true }
}
