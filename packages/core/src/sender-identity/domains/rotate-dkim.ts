import type { AuditOf } from '../../audit/audit-record'
import { AppError } from '../../errors/app-error'
import { nextRotationState } from '../dkim-rotation'
import { newDkimKey } from './add-domain'
import { PENDING_CHECK_EVERY_MS } from './apply-record-checks'
import { type DomainView, domainView } from './domain-view'
import { type DomainQuery, domainNotFound, findOwnDomain } from './get-domain'
import type { AddDomainDeps, StoredDomain } from './ports'
import { newDkimSelector } from './selector'

/**
 * Starts a DKIM key rotation: a new key under a new selector, listed beside the active one. The
 * active key keeps signing until the new record verifies (the rotation reducer promotes it then and
 * lists the old one as removable a week later), so no signature is made with an unpublished key.
 * A 409 says why when a rotation is not possible (first key not verified, one already waiting).
 */
export async function rotateDkim(
  input: DomainQuery & { audit?: AuditOf<StoredDomain> | undefined },
  deps: AddDomainDeps,
): Promise<DomainView> {
  const { audit, ...query } = input
  const domain = await findOwnDomain(query, deps)
  const now = deps.clock.now()
  const used = new Set(domain.keys.map((key) => key.selector))
  let selector = newDkimSelector(now)
  while (used.has(selector)) selector = newDkimSelector(now)
  // Checked before generating a key (tens of milliseconds), and again under the lock below.
  refuseUnlessAllowed(nextRotationState(domain.dkim, { type: 'rotate', selector }, now))
  const key = await newDkimKey(selector, deps)
  const updated = await deps.store.updateDomain(
    query,
    (current) => {
      const transition = refuseUnlessAllowed(
        nextRotationState(current.dkim, { type: 'rotate', selector }, now),
      )
      return {
        dkim: transition,
        addKey: key,
        nextCheckAt: new Date(now.getTime() + PENDING_CHECK_EVERY_MS),
      }
    },
    audit,
  )
  if (updated === null) throw domainNotFound(query.domainId)
  return domainView(updated.domain, deps.settings)
}

function refuseUnlessAllowed(transition: ReturnType<typeof nextRotationState>) {
  if (!transition.ok) throw new AppError('conflict', `Cannot rotate the DKIM key: ${transition.reason}`)
  return transition.state
}
