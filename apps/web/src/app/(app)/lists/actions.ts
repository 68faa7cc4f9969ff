'use server'

import { splitEmailList, validateListName } from '@fairlane/core'
import {
  addListMembers,
  addListMembersByEmail,
  createList,
  deleteList,
  removeListMember,
  renameList,
} from '@fairlane/db/queries/lists'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import type { FieldFormState } from './single-field-form'

/** A list id from a form; malformed or another tenant's ids end as "not found" below, never as an error. */
function listIdOf(form: FormData): string {
  const id = String(form.get('listId') ?? '')
  if (!isUuid(id)) notFound()
  return id
}

const db = () => container().database.db

export async function createListAction(_state: FieldFormState, form: FormData): Promise<FieldFormState> {
  const { session } = await authorize('contacts.manage')
  const value = String(form.get('name') ?? '')
  const name = validateListName(value)
  if (!name.ok) return { value, error: name.message }
  const result = await createList(db(), { tenantId: session.tenantId, name: name.name })
  if (result.kind === 'name_taken') return { value, error: 'You already have a list with this name.' }
  revalidatePath('/lists')
  redirect(`/lists/${result.id}?notice=created`)
}

export async function renameListAction(_state: FieldFormState, form: FormData): Promise<FieldFormState> {
  const { session } = await authorize('contacts.manage')
  const listId = listIdOf(form)
  const value = String(form.get('name') ?? '')
  const name = validateListName(value)
  if (!name.ok) return { value, error: name.message }
  const result = await renameList(db(), { tenantId: session.tenantId, listId, name: name.name })
  if (result === 'not_found') notFound()
  if (result === 'name_taken') return { value, error: 'You already have a list with this name.' }
  revalidatePath('/lists')
  revalidatePath(`/lists/${listId}`)
  return { value: name.name, notice: 'Renamed.' }
}

export async function deleteListAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const listId = listIdOf(form)
  const result = await deleteList(db(), { tenantId: session.tenantId, listId })
  if (result === 'not_found') notFound()
  if (result === 'in_use') redirect(`/lists/${listId}?notice=in-use`)
  revalidatePath('/lists')
  redirect('/lists?notice=deleted')
}

export async function addMembersByEmailAction(
  _state: FieldFormState,
  form: FormData,
): Promise<FieldFormState> {
  const { session } = await authorize('contacts.manage')
  const listId = listIdOf(form)
  const value = String(form.get('emails') ?? '')
  const { emails, invalid } = splitEmailList(value)
  if (invalid.length > 0) return { value, error: `Not email addresses: ${invalid.slice(0, 10).join(', ')}` }
  if (emails.length === 0) return { value, error: 'Type one or more email addresses.' }
  if (emails.length > 1000) return { value, error: 'Add at most 1,000 addresses at a time.' }
  const result = await addListMembersByEmail(db(), { tenantId: session.tenantId, listId, emails })
  if (result === null) notFound()
  revalidatePath(`/lists/${listId}`)
  if (result.unknown.length > 0) {
    return {
      value: result.unknown.join('\n'),
      error: `Added ${result.added}. These are not your contacts yet (add or import them first): ${result.unknown.slice(0, 10).join(', ')}${result.unknown.length > 10 ? ', …' : ''}`,
    }
  }
  const already = emails.length - result.added
  return {
    value: '',
    notice: `Added ${result.added}${already > 0 ? ` (${already} already on the list)` : ''}.`,
  }
}

export async function addSelectedContactsAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const listId = listIdOf(form)
  const contactIds = form.getAll('contactId').map(String).filter(isUuid).slice(0, 1000)
  const result = await addListMembers(db(), { tenantId: session.tenantId, listId, contactIds })
  if (result === null) notFound()
  revalidatePath(`/lists/${listId}`)
  redirect(`/lists/${listId}?notice=added&count=${result.added}`)
}

export async function removeMemberAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const listId = listIdOf(form)
  const contactId = String(form.get('contactId') ?? '')
  if (!isUuid(contactId)) notFound()
  await removeListMember(db(), { tenantId: session.tenantId, listId, contactId })
  revalidatePath(`/lists/${listId}`)
  redirect(`/lists/${listId}?notice=removed`)
}
