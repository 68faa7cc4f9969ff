'use server'

import { type ApiKeyScope, issueApiKey } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createApiKeyStore, revokeApiKey } from '@fairlane/db/queries/api-keys'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { uiAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

export interface CreateKeyState {
  name: string
  scope: string
  domain: string
  error?: string
  /** Which field `error` is about, so the form shows it there. */
  errorField?: 'name' | 'scope' | 'domain'
  /** The new key in full: returned once, to this response only; only its hash is stored. */
  created?: { name: string; key: string; scope: ApiKeyScope; domain: string | null }
}

export async function createKeyAction(
  _previous: CreateKeyState,
  formData: FormData,
): Promise<CreateKeyState> {
  const name = String(formData.get('name') ?? '')
  const scope = String(formData.get('scope') ?? 'full')
  const domain = String(formData.get('domain') ?? '')
  const { session, refusal } = await authorize('apiKeys.manage')
  // An unverified email or a tenant held for approval: said next to the form, nothing made.
  if (refusal) return { name, scope, domain, error: refusal.message }
  const { database, config } = container()
  try {
    const created = await issueApiKey(
      { tenantId: session.tenantId, name, scope, domain, actor: await uiAuditActor(session) },
      {
        store: createApiKeyStore(database.db),
        senderDomains: createSenderDomains(database.db),
        maxActiveKeys: config.MAX_API_KEYS_PER_TENANT,
      },
    )
    revalidatePath('/api-keys')
    return {
      name: '',
      scope: 'full',
      domain: '',
      created: { name: created.name, key: created.key, scope: created.scope, domain: created.domain },
    }
  } catch (error) {
    // A blank or long name, an unknown scope, a domain not verified, or the tenant's maximum of keys.
    if (isAppError(error) && (error.code === 'validation_failed' || error.code === 'unprocessable')) {
      const issue = error.details?.[0]
      const field = issue?.path
      return {
        name: name.trim(),
        scope,
        domain,
        error: issue?.message ?? error.message,
        ...(field === 'name' || field === 'scope' || field === 'domain' ? { errorField: field } : {}),
      }
    }
    throw error
  }
}

export async function revokeKeyAction(formData: FormData): Promise<void> {
  // Revoking needs the role only: a tenant not in good standing may still shut a key off.
  const { session } = await authorize('apiKeys.manage')
  const keyId = String(formData.get('keyId') ?? '')
  // Another tenant's key (or no key) gets the same answer as a missing one: nothing is revealed.
  const revoked =
    isUuid(keyId) &&
    (await revokeApiKey(container().database.db, {
      tenantId: session.tenantId,
      keyId,
      now: new Date(),
      actor: await uiAuditActor(session),
    }))
  revalidatePath('/api-keys')
  redirect(revoked ? '/api-keys?revoked=1' : '/api-keys?missing=1')
}
