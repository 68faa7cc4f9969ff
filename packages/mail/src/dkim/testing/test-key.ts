import { generateKeyPairSync, type KeyObject } from 'node:crypto'

/** A signing key of the DKIM tests and the TXT record that publishes it. */
export interface TestDkimKey {
  privateKey: KeyObject
  /** `v=DKIM1; k=rsa; p=…`: the public key as a verifier reads it from DNS. */
  record: string
}

/** A fresh RSA-2048 key, the size Fairlane generates for sending domains. */
export function testDkimKey(): TestDkimKey {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')
  return { privateKey: pair.privateKey, record: `v=DKIM1; k=rsa; p=${publicKey}` }
}

/**
 * mailauth's DNS resolver for one key: only `<selector>._domainkey.<domain>` TXT answers, with the
 * record `record()` gives at the time of the lookup; any other name is not found.
 */
export function dkimResolver(input: { selector: string; domain: string; record: () => string }) {
  return async (name: string, type = 'TXT'): Promise<string[][]> => {
    if (type !== 'TXT' || name !== `${input.selector}._domainkey.${input.domain}`) {
      throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' })
    }
    return [[input.record()]]
  }
}
