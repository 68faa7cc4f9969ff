import { loadConfig } from '@fairlane/config'
import { rekeyDkimKeys } from '@fairlane/core'
import { createDatabase, poolerSettings } from './client'
import { createDkimKeyCiphertextStore } from './queries/dkim-keys'
import { describeServer } from './url'

/**
 * `pnpm dkim:rekey`: re-encrypts every stored DKIM private key under DKIM_ENCRYPTION_KEY's first key
 * id, so an older key can be retired. To rotate: put the new key first (`new:…,old:…`) and restart
 * web and workers, run this, then drop the old key from the list. Prints what it did and the keys per
 * key id; exits 1 when a key could not be decrypted (its key id is missing from the list), and then
 * no key may be removed yet.
 */
const config = loadConfig()
const database = createDatabase(config.DATABASE_URL, {
  max: 2,
  applicationName: 'dkim-rekey',
  ...poolerSettings(config),
})

try {
  const result = await rekeyDkimKeys({
    store: createDkimKeyCiphertextStore(database.db),
    keys: config.DKIM_ENCRYPTION_KEY,
  })
  const current = result.currentKeyId
  const others = result.keysByKeyId.filter((entry) => entry.encryptionKeyId !== current)
  const byId = result.keysByKeyId.map((entry) => `${entry.encryptionKeyId}: ${entry.keys}`).join(', ')
  console.log(
    `fairlane: ${result.rekeyed} DKIM private keys re-encrypted under key id ${current}` +
      (result.skipped > 0 ? ` (${result.skipped} changed meanwhile, left as they were)` : '') +
      `; keys per key id now: ${byId || 'none stored'}`,
  )
  for (const failure of result.failed) {
    console.error(
      `fairlane: DKIM key ${failure.keyId} (domain ${failure.domainId}, selector ${failure.selector}) was not re-encrypted: ${failure.reason}`,
    )
  }
  if (others.length === 0) {
    const retired = config.DKIM_ENCRYPTION_KEY.slice(1).map((key) => key.kid)
    if (retired.length > 0) {
      console.log(
        `fairlane: no stored key uses key id ${retired.join(', ')} any more: DKIM_ENCRYPTION_KEY may list only ${current}`,
      )
    }
  } else {
    console.error(
      `fairlane: keys under ${others.map((entry) => entry.encryptionKeyId).join(', ')} remain: keep those key ids in DKIM_ENCRYPTION_KEY and run this again`,
    )
    process.exitCode = 1
  }
} catch (error) {
  const reason = (error instanceof Error && error.message) || String(error)
  console.error(
    `fairlane: re-encrypting DKIM keys in the database at ${describeServer(config.DATABASE_URL)} failed: ${reason}`,
  )
  process.exitCode = 1
} finally {
  await database.close()
}
