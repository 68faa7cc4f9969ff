'use server'

import { addListMembersMatching } from '@fairlane/db/queries/lists'
import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

/** "Add all matching to a list" on the contacts page: every contact the search matches, not only the page shown. */
export async function addMatchingToListAction(form: FormData): Promise<void> {
  const session = await requireTenantSession()
  const query = String(form.get('q') ?? '')
    .slice(0, 200)
    .trim()
  const listId = String(form.get('listId') ?? '')
  const back = (notice: string, extra: Record<string, string> = {}) =>
    `/contacts?${new URLSearchParams({ q: query, notice, ...extra }).toString()}`
  if (query === '') redirect(back('search-first'))
  if (!isUuid(listId)) redirect(back('choose-list'))
  const result = await addListMembersMatching(container().database.db, {
    tenantId: session.tenantId,
    listId,
    query,
  })
  if (result === null) redirect(back('choose-list'))
  revalidatePath('/lists')
  redirect(back('added-to-list', { added: String(result.added) }))
}
