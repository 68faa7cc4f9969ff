import { authErrorResponse, isAuthApiError } from '../auth/auth-api-error'
import { errorResponse } from '../http/errors'
import type { RouteDeps } from '../routes'

/**
 * `/api/auth/*`: better-auth's own HTTP endpoints (sign-in, sign-out, session), as the route table
 * serves them. Its handler answers its refusals itself; an `APIError` that escapes it (thrown by a
 * hook, as the sign-in throttle does) still becomes better-auth's JSON answer with its status, and
 * anything else the logged 500 every route gives. The body cap (16 KB) is the entry's, before this.
 */
export async function handleAuth(
  request: Request,
  deps: Pick<RouteDeps, 'auth' | 'logger'>,
): Promise<Response> {
  try {
    return await deps.auth.handler(request)
  } catch (error) {
    if (isAuthApiError(error)) return authErrorResponse(error)
    return errorResponse(error, deps.logger)
  }
}
