'use server'

import { resubscribeContact } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import {
  createContact,
  deleteContact,
  unsubscribeContact,
  updateContact,
} from '@fairlane/db/queries/contacts'
import { createResubscribeStore } from '@fairlane/db/queries/resubscribe'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { type ContactFormState, parseContactForm } from '@/server/contacts/contact-form'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

/** The contact id from a form; a malformed or foreign id is "not found", never an error page. */
function contactIdOf(form: FormData): string {
  const id = String(form.get('contactId') ?? '')
  if (!isUuid(id)) notFound()
  return id
}

export async function createContactAction(
  _state: ContactFormState,
  form: FormData,
): Promise<ContactFormState> {
  const { session } = await authorize('contacts.manage')
  const parsed = parseContactForm(form)
  if (!parsed.ok) return parsed.state
  const result = await createContact(container().database.db, {
    tenantId: session.tenantId,
    contact: parsed.contact,
  })
  if (result.kind === 'exists') {
    return {
      values: {
        email: parsed.contact.email,
        name: parsed.contact.name ?? '',
        attributes: String(form.get('attributes') ?? ''),
      },
      errors: { email: 'is already one of your contacts' },
    }
  }
  revalidatePath('/contacts')
  redirect(`/contacts/${result.id}?notice=created`)
}

export async function updateContactAction(
  _state: ContactFormState,
  form: FormData,
): Promise<ContactFormState> {
  const { session } = await authorize('contacts.manage')
  const contactId = contactIdOf(form)
  const parsed = parseContactForm(form)
  if (!parsed.ok) return parsed.state
  const result = await updateContact(container().database.db, {
    tenantId: session.tenantId,
    contactId,
    contact: parsed.contact,
  })
  if (result === 'not_found') notFound()
  if (result === 'email_taken') {
    return {
      values: {
        email: String(form.get('email') ?? ''),
        name: String(form.get('name') ?? ''),
        attributes: String(form.get('attributes') ?? ''),
      },
      errors: { email: 'another contact already has this email' },
    }
  }
  revalidatePath('/contacts')
  redirect(`/contacts/${contactId}?notice=saved`)
}

/** Like the unsubscribe link: campaigns stop, the person's transactional mail still goes. */
export async function unsubscribeContactAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const contactId = contactIdOf(form)
  const done = await unsubscribeContact(container().database.db, { tenantId: session.tenantId, contactId })
  if (!done) notFound()
  revalidatePath('/contacts')
  redirect(`/contacts/${contactId}?notice=unsubscribed`)
}

export interface ResubscribeFormState {
  error: string | null
  note: string
}

/**
 * "Resubscribe (on their request)": only with the box ticked that says the person asked, and
 * written to the tenant's audit log with the signed-in user and the note (see `resubscribeContact`).
 */
export async function resubscribeContactAction(
  _state: ResubscribeFormState,
  form: FormData,
): Promise<ResubscribeFormState> {
  const { session } = await authorize('suppressions.remove')
  const contactId = contactIdOf(form)
  const note = String(form.get('note') ?? '')
  let result: Awaited<ReturnType<typeof resubscribeContact>>
  try {
    result = await resubscribeContact(
      {
        tenantId: session.tenantId,
        contactId,
        actor: { userId: session.userId, email: session.email },
        confirmed: form.get('confirmed') === 'yes',
        note,
      },
      { store: createResubscribeStore(container().database.db), clock: { now: () => new Date() } },
    )
  } catch (error) {
    if (isAppError(error) && error.code === 'validation_failed') {
      const issue = error.details?.[0]
      const text =
        issue?.path === 'confirmed'
          ? 'Tick the box to confirm that the person asked to receive campaigns again.'
          : `Note ${issue?.message ?? 'is not valid'}.`
      return { error: text, note }
    }
    throw error
  }
  if (result.kind === 'not-found') notFound()
  revalidatePath('/contacts')
  if (result.kind === 'already-subscribed') redirect(`/contacts/${contactId}?notice=already-subscribed`)
  redirect(
    `/contacts/${contactId}?notice=${result.remainingScope === 'all' ? 'resubscribed-still-suppressed' : 'resubscribed'}`,
  )
}

export async function deleteContactAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const contactId = contactIdOf(form)
  const done = await deleteContact(container().database.db, { tenantId: session.tenantId, contactId })
  if (!done) notFound()
  revalidatePath('/contacts')
  redirect('/contacts?notice=deleted')
}
