'use server'

import { revalidatePath } from 'next/cache'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import {
  type SenderFormState,
  saveDefaultSenderForm,
  senderFormValuesOf,
} from '@/server/settings/default-sender'

/** Sets or clears the tenant's default sender (From and Reply-To of mail that names none). */
export async function saveDefaultSenderAction(
  _state: SenderFormState,
  form: FormData,
): Promise<SenderFormState> {
  const session = await requireTenantSession()
  const state = await saveDefaultSenderForm(
    { tenantId: session.tenantId, values: senderFormValuesOf(form) },
    { db: container().database.db },
  )
  if (state.saved) revalidatePath('/settings')
  return state
}
