import { AppError, validationFailed } from '../errors/app-error'
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key'

export const API_KEY_NAME_MAX = 80

export interface ApiKeyStore {
  /**
   * Inserts the key unless the tenant already holds `maxActive` unrevoked keys, deciding under a lock
   * on the tenant so two concurrent creations cannot both pass the count.
   */
  insertWithinLimit(input: {
    tenantId: string
    name: string
    prefix: string
    keyHash: string
    maxActive: number
  }): Promise<{ created: true; id: string } | { created: false; active: number }>
}

export interface IssueApiKeyDeps {
  store: ApiKeyStore
  /** MAX_API_KEYS_PER_TENANT: a tenant's keys each get the per-key rate, so their number is bounded too. */
  maxActiveKeys: number
}

/**
 * A new API key for a tenant: `key` is the secret in full, shown once; only its hash is stored.
 * Refused (`unprocessable`, until a key is revoked) when the tenant holds its maximum of active keys.
 */
export async function issueApiKey(
  input: { tenantId: string; name: string },
  deps: IssueApiKeyDeps,
): Promise<{ id: string; key: string; name: string }> {
  const name = input.name.trim()
  if (!name)
    throw validationFailed([{ path: 'name', message: 'Give the key a name, such as “Production server”' }])
  if (name.length > API_KEY_NAME_MAX) {
    throw validationFailed([{ path: 'name', message: `Use at most ${API_KEY_NAME_MAX} characters` }])
  }
  const key = generateApiKey()
  const outcome = await deps.store.insertWithinLimit({
    tenantId: input.tenantId,
    name,
    prefix: apiKeyPrefix(key),
    keyHash: hashApiKey(key),
    maxActive: deps.maxActiveKeys,
  })
  if (!outcome.created) {
    throw new AppError(
      'unprocessable',
      `This account already has ${outcome.active} active API keys, the most allowed (${deps.maxActiveKeys}). Revoke a key you no longer use, then create the new one.`,
    )
  }
  return { id: outcome.id, key, name }
}
