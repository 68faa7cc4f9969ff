'use server'

import { createSegment, deleteSegment, parseFilterText, renameSegment } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createSegmentStore } from '@fairlane/db/queries/segments'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import type { FieldFormState } from '../lists/single-field-form'

const store = () => createSegmentStore(container().database.db)

function segmentIdOf(form: FormData): string {
  const id = String(form.get('segmentId') ?? '')
  if (!isUuid(id)) notFound()
  return id
}

/** "Save as segment" on the contacts page: the filter as typed, under a name. */
export async function createSegmentAction(_state: FieldFormState, form: FormData): Promise<FieldFormState> {
  const { session } = await authorize('contacts.manage')
  const value = String(form.get('name') ?? '')
  const parsed = parseFilterText(String(form.get('filter') ?? ''))
  if (!parsed.ok) return { value, error: parsed.issues.map((issue) => issue.message).join(' ') }
  let id: string
  try {
    id = (
      await createSegment(
        { tenantId: session.tenantId, name: value, filter: parsed.filter },
        { store: store() },
      )
    ).id
  } catch (error) {
    if (isAppError(error) && error.details?.[0]) {
      const detail = error.details[0]
      return { value, error: detail.path === 'name' ? `The name ${detail.message}.` : error.message }
    }
    throw error
  }
  revalidatePath('/segments')
  redirect(`/segments?notice=created&segment=${id}`)
}

export async function renameSegmentAction(_state: FieldFormState, form: FormData): Promise<FieldFormState> {
  const { session } = await authorize('contacts.manage')
  const segmentId = segmentIdOf(form)
  const value = String(form.get('name') ?? '')
  try {
    const { name } = await renameSegment(
      { tenantId: session.tenantId, segmentId, name: value },
      { store: store() },
    )
    revalidatePath('/segments')
    return { value: name, notice: 'Renamed.' }
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error) && error.details?.[0])
      return { value, error: `The name ${error.details[0].message}.` }
    throw error
  }
}

/** Deletes a segment; while a scheduled or sending campaign uses it, the page says which. */
export async function deleteSegmentAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const segmentId = segmentIdOf(form)
  try {
    await deleteSegment({ tenantId: session.tenantId, segmentId }, { store: store() })
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error) && error.code === 'conflict')
      redirect(`/segments?notice=in-use&segment=${segmentId}`)
    throw error
  }
  revalidatePath('/segments')
  redirect('/segments?notice=deleted')
}
