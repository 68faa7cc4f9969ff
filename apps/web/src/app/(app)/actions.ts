'use server'

import { switchActiveTenant } from '@fairlane/db/queries/team'
import { revalidatePath } from 'next/cache'
import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'

/**
 * Deletes the session row and clears the cookie (nextCookies), then leaves the app. Needs no
 * permission: a user whose last membership was removed must still be able to sign out.
 */
export async function signOutAction(): Promise<void> {
  const requestHeaders = await headers()
  const { auth } = container()
  if (await auth.api.getSession({ headers: requestHeaders })) {
    await auth.api.signOut({ headers: requestHeaders })
  }
  redirect('/sign-in')
}

/**
 * The header's tenant switcher: the session acts for `tenantId` from the next request on, if the user
 * is a member of it (checked in the same statement); anything else leaves the session as it was.
 */
export async function switchTenantAction(form: FormData): Promise<void> {
  const { session } = await authorize('tenant.read')
  const tenantId = String(form.get('tenantId') ?? '')
  if (isUuid(tenantId)) {
    await switchActiveTenant(container().database.db, {
      sessionId: session.sessionId,
      userId: session.userId,
      tenantId,
    })
  }
  revalidatePath('/', 'layout')
  redirect('/dashboard')
}
