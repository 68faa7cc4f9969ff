import type { MembershipRole } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { findActingMembership } from '@fairlane/db/queries/accounts'
import type { Auth } from './better-auth'

/** Who is signed in and which tenant they act for; every page and action reads the tenant from here. */
export interface TenantSession {
  /** better-auth's session row: the tenant switcher sets its `active_tenant_id`. */
  sessionId: string
  userId: string
  email: string
  name: string
  tenantId: string
  tenantName: string
  role: MembershipRole
  /** The user's address is verified (better-auth's `emailVerified`). */
  emailVerified: boolean
  /** The tenant is not held for approval. */
  tenantApproved: boolean
  /** The profile's IANA zone for showing times; null: the browser's. */
  timeZone: string | null
}

/**
 * The tenant session of a request's headers, or null (nobody signed in, or no membership). better-auth
 * checks the signed cookie and the session row (expiry included); the tenant is the user's membership
 * (the session's active tenant while still a member), so removing a membership takes effect on the
 * next request. Outside Next.js so the per-role tests read sessions exactly as pages do.
 */
export async function readTenantSession(
  deps: {
    auth: Auth
    db: Database
    /** SIGNUP_MODE=open: nobody is held back for an unverified address. */
    signupOpen?: boolean
  },
  requestHeaders: Headers,
): Promise<TenantSession | null> {
  const found = await deps.auth.api.getSession({ headers: requestHeaders })
  if (!found) return null
  const membership = await findActingMembership(deps.db, {
    userId: found.user.id,
    preferredTenantId: found.session.activeTenantId,
  })
  if (!membership) return null
  return {
    sessionId: found.session.id,
    userId: found.user.id,
    email: found.user.email,
    name: found.user.name,
    tenantId: membership.tenantId,
    tenantName: membership.tenantName,
    role: membership.role,
    emailVerified: found.user.emailVerified === true || deps.signupOpen === true,
    tenantApproved: membership.tenantApproved,
    timeZone: found.user.timeZone ?? null,
  }
}
