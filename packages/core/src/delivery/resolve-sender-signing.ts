import { type KeyObject, sign } from 'node:crypto'
import type { DomainStatus } from '../domain/statuses'
import type { EncryptedPrivateKey } from '../sender-identity/dkim-keys'
import { type DkimRotationState, signingKey } from '../sender-identity/dkim-rotation'
import type { SenderSigning } from './ports'

/** A sending domain as the send path needs it, with the stored key of its active DKIM selector. */
export interface SigningDomain {
  name: string
  status: DomainStatus
  returnPathLabel: string
  dkim: DkimRotationState
  /** The `dkim_keys` row of `dkim.active`'s selector; null when there is none. */
  activeKey: (EncryptedPrivateKey & { selector: string }) | null
}

const PROBE = Buffer.from('fairlane dkim key probe')

/**
 * Whether a domain's mail may leave, and with which key. Only a `verified` domain whose rotation
 * state names a signing key signs (that key's record was found published); anything else holds its
 * mail. The key is decrypted, parsed and tried once here: nodemailer's signer drops a signature it
 * cannot make and sends the mail unsigned, so a key that cannot sign must never reach it.
 */
export function resolveSenderSigning(
  domain: SigningDomain | undefined,
  loadKey: (stored: EncryptedPrivateKey) => KeyObject,
): SenderSigning {
  if (!domain) {
    return { kind: 'hold', code: 'sender_domain_unverified', reason: 'the sending domain no longer exists' }
  }
  if (domain.status !== 'verified') {
    return {
      kind: 'hold',
      code: 'sender_domain_unverified',
      reason: `the sending domain ${domain.name} is ${domain.status}, not verified`,
    }
  }
  const selector = signingKey(domain.dkim)
  if (selector === null) {
    return {
      kind: 'hold',
      code: 'sender_domain_unverified',
      reason: `the DKIM record of ${domain.name} no longer verifies`,
    }
  }
  const unusable = (why: string): SenderSigning => ({
    kind: 'hold',
    code: 'signing_failed',
    reason: `the DKIM key ${selector} of ${domain.name} ${why}`,
  })
  if (domain.activeKey?.selector !== selector) return unusable('is not stored')
  let privateKey: KeyObject
  try {
    privateKey = loadKey(domain.activeKey)
  } catch (error) {
    return unusable(`could not be loaded: ${(error as Error).message}`)
  }
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'rsa') {
    return unusable('is not an RSA private key')
  }
  try {
    sign('sha256', PROBE, privateKey)
  } catch (error) {
    return unusable(`cannot sign: ${(error as Error).message}`)
  }
  return {
    kind: 'sign',
    domainName: domain.name,
    selector,
    privateKey,
    returnPathHost: `${domain.returnPathLabel}.${domain.name}`,
  }
}
