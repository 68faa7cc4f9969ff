import 'server-only'
import { type AccessDecision, decideAccess, type Permission } from '@fairlane/core'
import { headers } from 'next/headers'
import { forbidden, redirect } from 'next/navigation'
import { cache } from 'react'
import { container } from '../container'
import { readTenantSession, type TenantSession } from './tenant-session'

export type { TenantSession }

/**
 * The signed-in user's tenant session, or null when nobody is signed in (or the user belongs to no
 * tenant). Cached per request, so the layout and the page share one session and membership lookup.
 * better-auth checks the signed cookie and the session row (expiry included); the tenant is the
 * user's membership, so removing a membership takes effect on the next request.
 */
export const getTenantSession = cache(async (): Promise<TenantSession | null> => {
  // Reading the headers first also marks the page dynamic before the container (and the environment
  // check) is touched, so `next build` never builds a container while prerendering.
  const requestHeaders = await headers()
  const { auth, database, config } = container()
  return readTenantSession(
    { auth, db: database.db, signupOpen: config.SIGNUP_MODE === 'open' },
    requestHeaders,
  )
})

/** The tenant session; redirects to /sign-in when there is none (pages and server actions). */
export async function requireTenantSession(): Promise<TenantSession> {
  const session = await getTenantSession()
  if (!session) redirect('/sign-in')
  return session
}

/** Why a permitted role is still refused (unverified email, tenant held), or null when it may act. */
export type StandingRefusal = Extract<AccessDecision, { allowed: false }> | null

/**
 * The one place a page or server action checks what the signed-in user may do for their tenant
 * (core's `decideAccess`): nobody signed in → /sign-in; a role without `permission` → the 403 page.
 * A role with it but a tenant not yet in good standing (email unverified, held for approval) gets
 * the session and the refusal, for the caller to show (a form error, a disabled button with why).
 */
export async function authorize(
  permission: Permission,
): Promise<{ session: TenantSession; refusal: StandingRefusal }> {
  const session = await requireTenantSession()
  const decision = decideAccess(session, permission)
  if (decision.allowed) return { session, refusal: null }
  if (decision.reason === 'role') forbidden()
  return { session, refusal: decision }
}

/** A signed-in user of the admin console: a platform admin, whatever tenants they belong to. */
export interface AdminSession {
  userId: string
  email: string
  name: string
}

/**
 * The signed-in user and whether they are a platform admin, or null when nobody is signed in. Cached
 * per request like the tenant session; `is_platform_admin` is read from the user row each time, so
 * revoking it takes effect on the next request.
 */
export const getSignedInUser = cache(
  async (): Promise<(AdminSession & { isPlatformAdmin: boolean }) | null> => {
    const requestHeaders = await headers()
    const found = await container().auth.api.getSession({ headers: requestHeaders })
    if (!found) return null
    return {
      userId: found.user.id,
      email: found.user.email,
      name: found.user.name,
      isPlatformAdmin: found.user.isPlatformAdmin === true,
    }
  },
)

/**
 * For every admin page: nobody signed in → /sign-in; a tenant user → the 403 page (HTTP 403, via
 * `forbidden()` and app/forbidden.tsx).
 */
export async function requirePlatformAdmin(): Promise<AdminSession> {
  const user = await getSignedInUser()
  if (!user) redirect('/sign-in')
  if (!user.isPlatformAdmin) forbidden()
  return { userId: user.userId, email: user.email, name: user.name }
}
