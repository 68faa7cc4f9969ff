'use server'

import { parseFilterText } from '@fairlane/core'
import { addListMembersMatching } from '@fairlane/db/queries/lists'
import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

/**
 * "Add all matching to a list" on the contacts page: every contact the search and/or attribute filter
 * matches, not only the page shown.
 */
export async function addMatchingToListAction(form: FormData): Promise<void> {
  const { session } = await authorize('contacts.manage')
  const query = String(form.get('q') ?? '')
    .slice(0, 200)
    .trim()
  const filterText = String(form.get('filter') ?? '')
    .slice(0, 4000)
    .trim()
  const listId = String(form.get('listId') ?? '')
  const back = (notice: string, extra: Record<string, string> = {}) =>
    `/contacts?${new URLSearchParams({ q: query, ...(filterText ? { filter: filterText } : {}), notice, ...extra }).toString()}`
  const parsed = filterText === '' ? null : parseFilterText(filterText)
  // A filter that does not parse adds nobody: the page shows its errors.
  if (parsed !== null && !parsed.ok) redirect(back('search-first'))
  const filter = parsed?.ok ? parsed.filter : undefined
  if (query === '' && filter === undefined) redirect(back('search-first'))
  if (!isUuid(listId)) redirect(back('choose-list'))
  const result = await addListMembersMatching(container().database.db, {
    tenantId: session.tenantId,
    listId,
    query,
    filter,
  })
  if (result === null) redirect(back('choose-list'))
  revalidatePath('/lists')
  redirect(back('added-to-list', { added: String(result.added) }))
}
