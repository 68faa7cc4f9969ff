import { AppError } from '@fairlane/core/errors'
import { ADMIN_TOKEN_ACTOR, authenticateAdmin } from './admin-token'

/** The signed-in user as the admin API needs them: who (for the audit log) and whether they may. */
export interface SessionUser {
  userId: string
  email: string
  isPlatformAdmin: boolean
}

/** Reads the better-auth session of a request's cookies; null when there is none (or it expired). */
export type SessionReader = (headers: Headers) => Promise<SessionUser | null>

export interface AdminAccessDeps {
  /** `ADMIN_TOKEN`; undefined closes the bearer way in (admin sessions still work). */
  adminToken: string | undefined
  readSession: SessionReader
  /** APP_URL's origin: a cookie-authenticated change must come from the app's own pages. */
  appOrigin: string
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Who may use `/api/admin`: the `ADMIN_TOKEN` bearer (scripts; actor `admin-token`) or a signed-in
 * platform admin (the console; actor = their email). A bearer header, when sent, decides alone, so a
 * script with a wrong token is told so rather than judged by some cookie. A signed-in user who is not
 * a platform admin gets 403; nobody at all, 401.
 *
 * Cookie-authenticated changes also need a same-origin `Origin` (when the browser sends one): the
 * session cookie is SameSite=Lax already, this keeps a cross-site form or fetch out even so.
 */
export async function authorizeAdmin(request: Request, deps: AdminAccessDeps): Promise<{ actor: string }> {
  if (request.headers.get('authorization') !== null) return authenticateAdmin(request, deps.adminToken)
  const user = request.headers.get('cookie') ? await deps.readSession(request.headers) : null
  if (!user) {
    throw new AppError(
      'unauthorized',
      'Missing admin token: send the header Authorization: Bearer <ADMIN_TOKEN>, or sign in as a platform admin',
    )
  }
  if (!user.isPlatformAdmin) {
    throw new AppError(
      'forbidden',
      'Only platform admins may use the admin API; this account is a tenant user',
    )
  }
  const origin = request.headers.get('origin')
  if (!SAFE_METHODS.has(request.method) && origin !== null && origin !== deps.appOrigin) {
    throw new AppError('forbidden', `Admin changes must come from ${deps.appOrigin} (got Origin ${origin})`)
  }
  return { actor: user.email }
}

export { ADMIN_TOKEN_ACTOR }
