import { Resolver } from 'node:dns/promises'
import {
  dkimRecordValue,
  encryptPrivateKey,
  generateDkimKeyPair,
  type KeyEncryptionKey,
} from '@fairlane/core'
import { type Database, dkimKeys, type StoredDkimRotation, sendingDomains } from '@fairlane/db'
import type { TestDnsServer } from '@fairlane/testing'
import { eq } from 'drizzle-orm'

export interface SeededDomain {
  id: string
  name: string
  selector: string
  returnPathHost: string
  /** The TXT value to publish at `<selector>._domainkey.<name>`. */
  dkimRecord: string
}

/**
 * A sending domain as the domain code leaves it once verified: an RSA-2048 key encrypted under
 * `keys`, its selector active in the rotation state, status `verified`. Written directly, so the send
 * path is tested without the verification flow.
 */
export async function seedVerifiedDomain(
  db: Database,
  input: { tenantId: string; name: string; keys: readonly KeyEncryptionKey[]; selector?: string },
): Promise<SeededDomain> {
  const pair = await generateDkimKeyPair()
  const selector = input.selector ?? `fl202612${Math.random().toString(36).slice(2, 6)}`
  const now = new Date().toISOString()
  const dkim: StoredDkimRotation = {
    active: { selector, createdAt: now },
    pending: null,
    retired: [],
    activeFailedChecks: 0,
  }
  const encrypted = encryptPrivateKey(pair.privateKeyPem, input.keys)
  const id = await db.transaction(async (tx) => {
    const [domain] = await tx
      .insert(sendingDomains)
      .values({
        tenantId: input.tenantId,
        name: input.name,
        status: 'verified',
        returnPathLabel: 'fl-bounces',
        dkim,
        verifiedAt: new Date(),
      })
      .returning({ id: sendingDomains.id })
    if (!domain) throw new Error('domain insert returned nothing')
    await tx.insert(dkimKeys).values({
      tenantId: input.tenantId,
      domainId: domain.id,
      selector,
      publicKey: pair.publicKey,
      privateKeyCiphertext: encrypted.ciphertext,
      encryptionKeyId: encrypted.encryptionKeyId,
    })
    return domain.id
  })
  return {
    id,
    name: input.name,
    selector,
    returnPathHost: `fl-bounces.${input.name}`,
    dkimRecord: dkimRecordValue(pair.publicKey),
  }
}

/** What the domain code does after two failed checks of the active DKIM record. */
export async function failDomain(db: Database, domainId: string): Promise<void> {
  await db
    .update(sendingDomains)
    .set({ status: 'failed', failureReason: 'the DKIM record was not found in two checks' })
    .where(eq(sendingDomains.id, domainId))
}

/** Publishes the domain's DKIM record on the test DNS server. */
export function publishDkim(dns: TestDnsServer, domain: SeededDomain): void {
  dns.publish({ type: 'TXT', name: `${domain.selector}._domainkey.${domain.name}`, value: domain.dkimRecord })
}

/** A mailauth resolver that asks the test DNS server, through node:dns as production would. */
export function dnsResolverFor(dns: TestDnsServer) {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([dns.address])
  return (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][] | string[]>
}
