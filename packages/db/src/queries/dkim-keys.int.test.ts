import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import {
  decryptPrivateKey,
  encryptPrivateKey,
  generateDkimKeyPair,
  initialRotationState,
  type KeyEncryptionKey,
  loadSigningKey,
  rekeyDkimKeys,
} from '@fairlane/core'
import { REPOSITORY_ROOT, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../index'
import { createDkimKeyCiphertextStore } from './dkim-keys'
import { insertSendingDomain } from './sending-domains'
import { createTenant } from './tenants'

/**
 * Retiring a DKIM key-encryption key: every stored private key is re-encrypted under the current key
 * id (`rekeyDkimKeys`, `pnpm dkim:rekey`), after which the keys are readable with the new key alone.
 */
const env = setupTestEnvironment('db-dkim-keys')
let database: DatabaseHandle

const kek = (kid: string): KeyEncryptionKey => ({ kid, key: randomBytes(32) })
const asEnv = (keys: KeyEncryptionKey[]) => keys.map((k) => `${k.kid}:${k.key.toString('base64')}`).join(',')

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 4 })
})
afterAll(async () => {
  await database?.close()
})
// Each test starts with no stored key: a run covers every tenant's keys, so one test's are another's.
afterEach(async () => {
  await database.sql`delete from sending_domains`
})

let domains = 0
/** A domain of a fresh tenant whose one DKIM key is encrypted under `keys[0]`; its PEM. */
async function domainWithKey(keys: KeyEncryptionKey[]) {
  domains += 1
  const tenantId = (await createTenant(database.db, { name: `Rekey ${domains}` })).id
  const pair = await generateDkimKeyPair()
  const encrypted = encryptPrivateKey(pair.privateKeyPem, keys)
  const selector = `fl2026${String(domains).padStart(6, '0')}`
  const domain = await insertSendingDomain(database.db, {
    tenantId,
    name: `rekey-${domains}.test`,
    returnPathLabel: 'fl-bounces',
    ownershipToken: 'token',
    dkim: initialRotationState(selector, new Date()),
    key: {
      selector,
      publicKey: pair.publicKey,
      privateKeyCiphertext: encrypted.ciphertext,
      encryptionKeyId: encrypted.encryptionKeyId,
    },
    nextCheckAt: new Date(),
  })
  if (!domain) throw new Error('domain not inserted')
  return { tenantId, domainId: domain.id, pem: pair.privateKeyPem }
}

async function storedKey(domainId: string) {
  const [row] = await database.sql<{ private_key_ciphertext: string; encryption_key_id: string }[]>`
    select private_key_ciphertext, encryption_key_id from dkim_keys where domain_id = ${domainId}`
  if (!row) throw new Error('no key stored')
  return { ciphertext: row.private_key_ciphertext, encryptionKeyId: row.encryption_key_id }
}

describe('re-encrypting DKIM private keys under the current key', () => {
  it('moves keys of every tenant from the old key id to the new one; the new key alone reads them', async () => {
    const old = kek('old')
    const fresh = kek('new')
    const first = await domainWithKey([old])
    const second = await domainWithKey([old])
    const storedBefore = await storedKey(second.domainId)
    expect(() => decryptPrivateKey(storedBefore, [fresh])).toThrow(/key id old/)

    const store = createDkimKeyCiphertextStore(database.db)
    // A batch of one: the walk must page through both keys.
    const result = await rekeyDkimKeys({ store, keys: [fresh, old], batchSize: 1 })
    expect(result).toMatchObject({ currentKeyId: 'new', rekeyed: 2, skipped: 0, failed: [] })
    expect(result.keysByKeyId.find((entry) => entry.encryptionKeyId === 'old')).toBeUndefined()

    for (const { domainId, pem } of [first, second]) {
      const stored = await storedKey(domainId)
      expect(stored.encryptionKeyId).toBe('new')
      expect(decryptPrivateKey(stored, [fresh])).toBe(pem)
      expect(() => loadSigningKey(stored, [fresh])).not.toThrow()
    }

    // Run again: nothing left to do.
    expect(await rekeyDkimKeys({ store, keys: [fresh, old] })).toMatchObject({ rekeyed: 0, failed: [] })
  })

  it('reports a key whose key id is not configured, leaving it as it was', async () => {
    const lost = kek('lost')
    const current = kek('cur')
    const orphan = await domainWithKey([lost])
    const before = await storedKey(orphan.domainId)
    const store = createDkimKeyCiphertextStore(database.db)
    const result = await rekeyDkimKeys({ store, keys: [current] })
    expect(result.failed).toEqual([
      expect.objectContaining({ domainId: orphan.domainId, reason: expect.stringContaining('key id lost') }),
    ])
    expect(result.keysByKeyId).toContainEqual({ encryptionKeyId: 'lost', keys: 1 })
    expect(await storedKey(orphan.domainId)).toEqual(before)
  })

  it('pnpm dkim:rekey: re-encrypts, then says the old key may go; the new key alone reads the key', async () => {
    const old = kek('k2026')
    const fresh = kek('k2027')
    const domain = await domainWithKey([old])
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'packages/db/src/dkim-rekey-cli.ts'],
      {
        cwd: REPOSITORY_ROOT,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATABASE_URL: env.databaseUrl,
          DKIM_ENCRYPTION_KEY: asEnv([fresh, old]),
        },
      },
    )
    expect(stdout).toMatch(/DKIM private keys re-encrypted under key id k2027/)
    expect(stdout).toContain(
      'no stored key uses key id k2026 any more: DKIM_ENCRYPTION_KEY may list only k2027',
    )
    const stored = await storedKey(domain.domainId)
    expect(stored.encryptionKeyId).toBe('k2027')
    expect(decryptPrivateKey(stored, [fresh])).toBe(domain.pem)
  })
})
