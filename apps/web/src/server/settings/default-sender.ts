import { type AuditActor, parseDefaultSender, type SenderChoice, setDefaultSender } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import type { Database } from '@fairlane/db'
import { createDefaultSenderStore, createSenderDomains } from '@fairlane/db/queries/senders'
import { auditBy, audited } from '../audit/record-audit'

/** What the default sender form holds and what its action answers. Shared by client and server. */
export interface SenderFormValues {
  from: string
  replyTo: string
}

export interface SenderFormState {
  values: SenderFormValues
  errors: Partial<Record<keyof SenderFormValues, string>>
  formError?: string | undefined
  /** Set after a save: what is in effect now, as stored (normalised). */
  saved?: SenderFormValues | undefined
}

export function senderFormValuesOf(form: FormData): SenderFormValues {
  return { from: String(form.get('from') ?? ''), replyTo: String(form.get('replyTo') ?? '') }
}

/**
 * Saves the tenant's default sender from the settings form by the same rules as the API: an empty
 * field clears it, a From must be on a verified domain (422 → said beside the field), and bad syntax
 * (CR/LF, a name over 200 characters, no address) is said beside the field it is in.
 */
export async function saveDefaultSenderForm(
  input: { tenantId: string; values: SenderFormValues; actor: AuditActor },
  deps: { db: Database },
): Promise<SenderFormState> {
  const { values } = input
  try {
    const saved = await setDefaultSender(
      {
        tenantId: input.tenantId,
        sender: parseDefaultSender(values),
        audit: auditBy(input.actor, (set: SenderChoice) => audited.defaultSenderSet(input.tenantId, set)),
      },
      { domains: createSenderDomains(deps.db), store: createDefaultSenderStore(deps.db) },
    )
    const stored = { from: saved.from ?? '', replyTo: saved.replyTo ?? '' }
    return { values: stored, errors: {}, saved: stored }
  } catch (error) {
    if (!isAppError(error)) throw error
    const errors: SenderFormState['errors'] = {}
    for (const detail of error.details ?? []) {
      if (detail.path === 'from' || detail.path === 'replyTo') errors[detail.path] ??= detail.message
    }
    const named = Object.keys(errors).length > 0
    return { values, errors, formError: named ? undefined : error.message }
  }
}
