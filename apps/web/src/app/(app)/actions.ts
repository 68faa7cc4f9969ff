'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { container } from '@/server/container'

/** Deletes the session row and clears the cookie (nextCookies), then leaves the app. */
export async function signOutAction(): Promise<void> {
  const requestHeaders = await headers()
  const { auth } = container()
  if (await auth.api.getSession({ headers: requestHeaders })) {
    await auth.api.signOut({ headers: requestHeaders })
  }
  redirect('/sign-in')
}
