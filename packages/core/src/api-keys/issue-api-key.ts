import type { AuditActor } from '../audit/audit-actor'
import { API_KEY_SCOPES, type ApiKeyScope } from '../domain/statuses'
import { AppError, validationFailed } from '../errors/app-error'
import { checkDomainName } from '../sender-identity/domain-name'
import type { SenderDomains } from '../senders/ports'
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key'

export const API_KEY_NAME_MAX = 80

export interface NewApiKeyRow {
  tenantId: string
  name: string
  prefix: string
  keyHash: string
  scope: ApiKeyScope
  domain: string | null
  createdByUserId: string | null
}

export interface ApiKeyStore {
  /**
   * Inserts the key unless the tenant already holds `maxActive` unrevoked keys, deciding under a lock
   * on the tenant so two concurrent creations cannot both pass the count; the audit entry
   * (`api_key.create`) is written in the same transaction.
   */
  insertWithinLimit(
    input: NewApiKeyRow & { maxActive: number; actor: AuditActor },
  ): Promise<{ created: true; id: string } | { created: false; active: number }>
}

export interface IssueApiKeyDeps {
  store: ApiKeyStore
  /** The domain restriction must name one of the tenant's verified domains. */
  senderDomains: SenderDomains
  /** MAX_API_KEYS_PER_TENANT: a tenant's keys each get the per-key rate, so their number is bounded too. */
  maxActiveKeys: number
}

export interface IssueApiKeyInput {
  tenantId: string
  name: string
  /** Unvalidated (a form's or a request's string); `full` when left out. */
  scope?: string | null
  /** Unvalidated; empty or null: any of the tenant's verified domains. */
  domain?: string | null
  actor: AuditActor
}

export interface IssuedApiKey {
  id: string
  key: string
  name: string
  scope: ApiKeyScope
  domain: string | null
}

/**
 * A new API key for a tenant: `key` is the secret in full, shown once; only its hash is stored.
 * `scope` `full` (every route) or `sending` (send messages and read their status); `domain`, when
 * given, must be one of the tenant's verified domains (422 naming `domain`), and the key then sends
 * only from it. Refused (`unprocessable`, until a key is revoked) when the tenant holds its maximum of
 * active keys.
 */
export async function issueApiKey(input: IssueApiKeyInput, deps: IssueApiKeyDeps): Promise<IssuedApiKey> {
  const name = input.name.trim()
  if (!name)
    throw validationFailed([{ path: 'name', message: 'Give the key a name, such as “Production server”' }])
  if (name.length > API_KEY_NAME_MAX) {
    throw validationFailed([{ path: 'name', message: `Use at most ${API_KEY_NAME_MAX} characters` }])
  }
  const scope = parseScope(input.scope)
  const domain = await checkKeyDomainChoice(input.tenantId, input.domain, deps.senderDomains)
  const key = generateApiKey()
  const outcome = await deps.store.insertWithinLimit({
    tenantId: input.tenantId,
    name,
    prefix: apiKeyPrefix(key),
    keyHash: hashApiKey(key),
    scope,
    domain,
    createdByUserId: input.actor.userId,
    maxActive: deps.maxActiveKeys,
    actor: input.actor,
  })
  if (!outcome.created) {
    throw new AppError(
      'unprocessable',
      `This account already has ${outcome.active} active API keys, the most allowed (${deps.maxActiveKeys}). Revoke a key you no longer use, then create the new one.`,
    )
  }
  return { id: outcome.id, key, name, scope, domain }
}

function parseScope(value: string | null | undefined): ApiKeyScope {
  if (value === undefined || value === null || value === '') return 'full'
  const scope = API_KEY_SCOPES.find((known) => known === value)
  if (scope) return scope
  throw validationFailed([{ path: 'scope', message: `Choose one of ${API_KEY_SCOPES.join(', ')}` }])
}

async function checkKeyDomainChoice(
  tenantId: string,
  value: string | null | undefined,
  domains: SenderDomains,
): Promise<string | null> {
  if (value === undefined || value === null || value.trim() === '') return null
  const checked = checkDomainName(value)
  const found = checked.ok ? await domains.findDomain({ tenantId, name: checked.name }) : null
  if (checked.ok && found?.status === 'verified') return checked.name
  const message = `${JSON.stringify(value.trim())} is not one of your verified sending domains`
  throw new AppError('unprocessable', `domain ${message}`, { details: [{ path: 'domain', message }] })
}
