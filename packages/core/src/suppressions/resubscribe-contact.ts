import type { Clock } from '../accept/ports'
import { validationFailed } from '../errors/app-error'
import type { ResubscribeResult, ResubscribeStore, TenantActor } from './ports'

export const MAX_RESUBSCRIBE_NOTE_LENGTH = 500

/**
 * The tenant subscribes a contact again because the person asked (by mail, on the phone, at the
 * till). Consent has to come from the person, so the tenant must say they asked (`confirmed`), and
 * the change is written to the tenant's audit log with who did it and the note, in the change's own
 * transaction. Clears the unsubscribe and the marketing-scoped suppression only: an every-lane
 * suppression (a bounce, a complaint, a manual entry) stays and is reported as `remainingScope`.
 */
export async function resubscribeContact(
  input: {
    tenantId: string
    contactId: string
    actor: TenantActor
    confirmed: boolean
    note: string
  },
  deps: { store: ResubscribeStore; clock: Clock },
): Promise<ResubscribeResult> {
  if (!input.confirmed) {
    throw validationFailed([
      { path: 'confirmed', message: 'confirm that the person asked to receive campaigns again' },
    ])
  }
  const note = input.note.trim()
  if (note.length > MAX_RESUBSCRIBE_NOTE_LENGTH) {
    throw validationFailed([
      { path: 'note', message: `must be at most ${MAX_RESUBSCRIBE_NOTE_LENGTH} characters` },
    ])
  }
  return deps.store.resubscribe({
    tenantId: input.tenantId,
    contactId: input.contactId,
    actor: input.actor,
    note: note === '' ? null : note,
    now: deps.clock.now(),
  })
}
