import { createHash, timingSafeEqual } from 'node:crypto'
import { AppError } from '@fairlane/core/errors'
import { bearerToken } from './bearer'

/** Who did it, as the audit log records it for the bearer token (an admin session records the email). */
export const ADMIN_TOKEN_ACTOR = 'admin-token'

/**
 * Checks `Authorization: Bearer <ADMIN_TOKEN>`. Both sides are hashed first so the comparison is
 * constant-time whatever the lengths. With no ADMIN_TOKEN configured the admin API is closed.
 */
export function authenticateAdmin(request: Request, adminToken: string | undefined): { actor: string } {
  if (adminToken === undefined) {
    throw new AppError('unauthorized', 'The admin API is disabled: ADMIN_TOKEN is not set on this server')
  }
  const presented = bearerToken(request)
  if (presented === null) {
    throw new AppError(
      'unauthorized',
      'Missing admin token: send the header Authorization: Bearer <ADMIN_TOKEN>',
    )
  }
  if (!timingSafeEqual(digest(presented), digest(adminToken))) {
    throw new AppError('unauthorized', 'Invalid admin token')
  }
  return { actor: ADMIN_TOKEN_ACTOR }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}
