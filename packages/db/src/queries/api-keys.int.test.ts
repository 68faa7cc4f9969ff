import { issueApiKey } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { countActiveApiKeys, createApiKeyStore, findApiKeyByPrefix, revokeApiKey } from './api-keys'
import { createSenderDomains } from './senders'
import { createTenant } from './tenants'

/** The cap on a tenant's active API keys (MAX_API_KEYS_PER_TENANT), against real PostgreSQL. */
const env = setupTestEnvironment('api-key-cap')
let database: DatabaseHandle

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 20, applicationName: 'api-key-cap-test' })
})

afterAll(async () => {
  await database?.close()
})

const ACTOR = { userId: 'user-1', label: 'owner@example.test', ipAddress: '203.0.113.9' }

const issue = (
  tenantId: string,
  name: string,
  maxActiveKeys = 10,
  options: { scope?: string; domain?: string } = {},
) =>
  issueApiKey(
    { tenantId, name, actor: ACTOR, ...options },
    {
      store: createApiKeyStore(database.db),
      senderDomains: createSenderDomains(database.db),
      maxActiveKeys,
    },
  )

describe('issueApiKey with createApiKeyStore', () => {
  it('refuses the 11th active key with a message saying what to do, and allows one again after a revocation', async () => {
    const tenant = await createTenant(database.db, { name: 'Key hoarder' })
    const ids: string[] = []
    for (let index = 1; index <= 10; index++) ids.push((await issue(tenant.id, `key ${index}`)).id)
    const refused = await issue(tenant.id, 'key 11').catch((error: unknown) => error)
    expect(isAppError(refused) && refused.code).toBe('unprocessable')
    expect((refused as Error).message).toMatch(
      /already has 10 active API keys, the most allowed \(10\)\. Revoke a key/,
    )
    expect(await countActiveApiKeys(database.db, { tenantId: tenant.id })).toBe(10)

    // Another tenant is not counted with this one.
    const other = await createTenant(database.db, { name: 'Neighbour' })
    await expect(issue(other.id, 'first')).resolves.toMatchObject({ name: 'first' })

    await revokeApiKey(database.db, {
      tenantId: tenant.id,
      keyId: ids[0] as string,
      now: new Date(),
      actor: ACTOR,
    })
    const again = await issue(tenant.id, '  replacement  ')
    expect(again).toMatchObject({ name: 'replacement', key: expect.stringMatching(/^fl_/) })
    await expect(issue(tenant.id, 'one too many')).rejects.toMatchObject({ code: 'unprocessable' })
  })

  it('holds the cap under concurrent creations', async () => {
    const tenant = await createTenant(database.db, { name: 'Racer' })
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, (_, index) => issue(tenant.id, `k${index}`, 5)),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5)
    expect(await countActiveApiKeys(database.db, { tenantId: tenant.id })).toBe(5)
  })

  it('names a blank or long key name', async () => {
    const tenant = await createTenant(database.db, { name: 'Names' })
    await expect(issue(tenant.id, '   ')).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'name' }],
    })
    await expect(issue(tenant.id, 'x'.repeat(81))).rejects.toMatchObject({
      details: [{ path: 'name', message: 'Use at most 80 characters' }],
    })
  })

  it('stores the scope and a verified domain, refuses an unverified or unknown domain naming `domain`, and audits creation and revocation with the address', async () => {
    const tenant = await createTenant(database.db, { name: 'Scoped' })
    await database.sql`
      insert into sending_domains (tenant_id, name, status, return_path_label, dkim, verified_at)
      values (${tenant.id}, 'mail.scoped.test', 'verified', 'fl-bounces', '{}'::jsonb, now()),
             (${tenant.id}, 'pending.scoped.test', 'pending', 'fl-bounces', '{}'::jsonb, null)`
    const made = await issue(tenant.id, 'app server', 10, { scope: 'sending', domain: ' Mail.Scoped.test ' })
    expect(made).toMatchObject({ scope: 'sending', domain: 'mail.scoped.test' })
    const stored = await findApiKeyByPrefix(database.db, { prefix: made.key.slice(0, 12) })
    expect(stored).toMatchObject({ scope: 'sending', domain: 'mail.scoped.test' })
    expect((await issue(tenant.id, 'plain')).scope).toBe('full')

    for (const domain of ['pending.scoped.test', 'elsewhere.test', 'not a domain']) {
      await expect(issue(tenant.id, 'bad', 10, { domain })).rejects.toMatchObject({
        code: 'unprocessable',
        details: [{ path: 'domain' }],
      })
    }
    await expect(issue(tenant.id, 'bad', 10, { scope: 'admin' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'scope' }],
    })

    await revokeApiKey(database.db, { tenantId: tenant.id, keyId: made.id, now: new Date(), actor: ACTOR })
    const entries = await database.sql<{ action: string; actor: string; ip_address: string }[]>`
      select action, actor, ip_address from tenant_audit_log
      where tenant_id = ${tenant.id} and target_id = ${made.id} order by id`
    expect(entries).toEqual([
      { action: 'api_key.create', actor: 'owner@example.test', ip_address: '203.0.113.9' },
      { action: 'api_key.revoke', actor: 'owner@example.test', ip_address: '203.0.113.9' },
    ])
  })
})
