'use server'

import { issueApiKey } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createApiKeyStore, revokeApiKey } from '@fairlane/db/queries/api-keys'
import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

export interface CreateKeyState {
  name: string
  error?: string
  /** The new key in full: returned once, to this response only; only its hash is stored. */
  created?: { name: string; key: string }
}

export async function createKeyAction(
  _previous: CreateKeyState,
  formData: FormData,
): Promise<CreateKeyState> {
  const session = await requireTenantSession()
  const name = String(formData.get('name') ?? '')
  const { database, config } = container()
  try {
    const created = await issueApiKey(
      { tenantId: session.tenantId, name },
      { store: createApiKeyStore(database.db), maxActiveKeys: config.MAX_API_KEYS_PER_TENANT },
    )
    revalidatePath('/api-keys')
    return { name: '', created: { name: created.name, key: created.key } }
  } catch (error) {
    // A blank or long name, or the tenant's maximum of active keys: said next to the form.
    if (isAppError(error) && (error.code === 'validation_failed' || error.code === 'unprocessable')) {
      return { name: name.trim(), error: error.details?.[0]?.message ?? error.message }
    }
    throw error
  }
}

export async function revokeKeyAction(formData: FormData): Promise<void> {
  const session = await requireTenantSession()
  const keyId = String(formData.get('keyId') ?? '')
  // Another tenant's key (or no key) gets the same answer as a missing one: nothing is revealed.
  const revoked =
    isUuid(keyId) &&
    (await revokeApiKey(container().database.db, { tenantId: session.tenantId, keyId, now: new Date() }))
  revalidatePath('/api-keys')
  redirect(revoked ? '/api-keys?revoked=1' : '/api-keys?missing=1')
}
