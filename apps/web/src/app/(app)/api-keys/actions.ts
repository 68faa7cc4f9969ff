'use server'

import { apiKeyPrefix, generateApiKey, hashApiKey } from '@fairlane/core'
import { createApiKey, revokeApiKey } from '@fairlane/db/queries/api-keys'
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

const NAME_MAX = 80

export async function createKeyAction(
  _previous: CreateKeyState,
  formData: FormData,
): Promise<CreateKeyState> {
  const session = await requireTenantSession()
  const name = String(formData.get('name') ?? '').trim()
  if (!name) return { name, error: 'Give the key a name, such as “Production server”' }
  if (name.length > NAME_MAX) return { name, error: `Use at most ${NAME_MAX} characters` }

  const key = generateApiKey()
  await createApiKey(container().database.db, {
    tenantId: session.tenantId,
    name,
    prefix: apiKeyPrefix(key),
    keyHash: hashApiKey(key),
  })
  revalidatePath('/api-keys')
  return { name: '', created: { name, key } }
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
