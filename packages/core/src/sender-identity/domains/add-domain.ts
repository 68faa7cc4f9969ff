import { z } from 'zod'
import type { AuditOf } from '../../audit/audit-record'
import { AppError, validationFailed } from '../../errors/app-error'
import { fieldIssues } from '../../errors/zod-issues'
import { encryptPrivateKey, generateDkimKeyPair } from '../dkim-keys'
import { initialRotationState } from '../dkim-rotation'
import { checkDomainName } from '../domain-name'
import { PENDING_CHECK_EVERY_MS } from './apply-record-checks'
import { type DomainView, domainView } from './domain-view'
import type { AddDomainDeps, NewDkimKey } from './ports'
import { DEFAULT_RETURN_PATH_LABEL, newDkimSelector, newOwnershipToken } from './selector'

export interface AddDomainInput {
  tenantId: string
  /** As the tenant typed it; normalised by `checkDomainName` (lowercase, punycode, no trailing dot). */
  name: string
  /** The audit entry of the addition, written with it. */
  audit?: AuditOf<Pick<DomainView, 'id' | 'name'>> | undefined
}

export const newDomainSchema = z.strictObject({
  name: z.string({ error: 'is required (a domain name such as example.com)' }).meta({
    description: 'The domain to send from, e.g. `example.com` or `mail.example.com`',
    example: 'example.com',
  }),
})

/** `POST /api/v1/domains`'s body: `{ name }`; anything else is a 400 naming the field. */
export function parseNewDomain(body: unknown): { name: string } {
  const parsed = newDomainSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data
}

/**
 * Adds a sending domain: a fresh RSA-2048 DKIM key under a new selector (its private half encrypted
 * under DKIM_ENCRYPTION_KEY before it leaves this function, never returned or logged), the
 * return-path label, and — when another tenant already has the name — an ownership token whose TXT
 * record this tenant must publish too, so nobody takes over a domain someone else proved. The
 * domain starts `pending` with its records unchecked; the scheduler looks them up every 5 minutes.
 * A tenant holding `maxDomains` already is refused (422) before any key is made, and again by the
 * insert (under a lock on the tenant) should concurrent adds pass the first count together.
 */
export async function addDomain(input: AddDomainInput, deps: AddDomainDeps): Promise<DomainView> {
  const checked = checkDomainName(input.name)
  if (!checked.ok) throw validationFailed([{ path: 'name', message: checked.message }])
  const held = await deps.store.countDomains({ tenantId: input.tenantId })
  if (held >= deps.maxDomains) throw tooManyDomains(held, deps.maxDomains)
  const now = deps.clock.now()
  const selector = newDkimSelector(now)
  const key = await newDkimKey(selector, deps)
  const created = await deps.store.insertDomain(
    {
      tenantId: input.tenantId,
      name: checked.name,
      returnPathLabel: DEFAULT_RETURN_PATH_LABEL,
      ownershipToken: newOwnershipToken(),
      dkim: initialRotationState(selector, now),
      key,
      nextCheckAt: new Date(now.getTime() + PENDING_CHECK_EVERY_MS),
      maxDomains: deps.maxDomains,
    },
    input.audit,
  )
  switch (created.kind) {
    case 'created':
      return domainView(created.domain, deps.settings)
    case 'name_taken':
      throw new AppError('conflict', `You already added the domain ${checked.name}`, {
        details: [{ path: 'name', message: 'is already one of your sending domains' }],
      })
    case 'limit':
      throw tooManyDomains(created.count, deps.maxDomains)
  }
}

function tooManyDomains(count: number, maxDomains: number): AppError {
  return new AppError(
    'unprocessable',
    `This account already has ${count} sending domains, the most allowed (${maxDomains}). Delete a domain you no longer send from, then add the new one.`,
  )
}

/** A new key pair, the private half encrypted at once: the plain PEM never leaves this function. */
export async function newDkimKey(
  selector: string,
  deps: Pick<AddDomainDeps, 'encryptionKeys'>,
): Promise<NewDkimKey> {
  const pair = await generateDkimKeyPair()
  const encrypted = encryptPrivateKey(pair.privateKeyPem, deps.encryptionKeys)
  return {
    selector,
    publicKey: pair.publicKey,
    privateKeyCiphertext: encrypted.ciphertext,
    encryptionKeyId: encrypted.encryptionKeyId,
  }
}
