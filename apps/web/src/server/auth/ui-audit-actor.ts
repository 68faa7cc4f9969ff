import 'server-only'
import type { AuditActor } from '@fairlane/core'
import { headers } from 'next/headers'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import { getTenantSession, type TenantSession } from './session'

/**
 * The audit log's who for a server action: the signed-in user's email and the client address the
 * web entry stamped on the request (TRUSTED_PROXIES applied; whatever the client sent is replaced).
 */
export async function uiAuditActor(session: Pick<TenantSession, 'userId' | 'email'>): Promise<AuditActor> {
  const requestHeaders = await headers()
  return {
    userId: session.userId,
    label: session.email,
    ipAddress: requestHeaders.get(CLIENT_ADDRESS_HEADER),
  }
}

/** The audit actor of the signed-in user of this request (for use cases called from server actions). */
export async function currentAuditActor(): Promise<AuditActor> {
  const session = await getTenantSession()
  if (!session) throw new Error('an audited change needs a signed-in user')
  return uiAuditActor(session)
}
