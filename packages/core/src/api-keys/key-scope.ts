import type { ApiKeyScope } from '../domain/statuses'
import { AppError } from '../errors/app-error'
import { parseSenderAddress } from '../senders/sender-address'

/**
 * What each scope may call. A `full` key may call every `/api/v1` route; a `sending` key only the
 * routes that declare `sending` (sending a message and reading its status), so a leaked key of an
 * application server cannot read contacts, change domains or webhooks. A route that declares nothing
 * needs `full`: a new route is closed to sending keys until someone decides otherwise.
 */
const SCOPES_ALLOWED: Record<ApiKeyScope, readonly ApiKeyScope[]> = {
  full: ['full', 'sending'],
  sending: ['sending'],
}

export function scopeAllows(keyScope: ApiKeyScope, routeNeeds: ApiKeyScope): boolean {
  return SCOPES_ALLOWED[keyScope].includes(routeNeeds)
}

/** 403 naming the key's scope and the one the route needs, unless the key may call it. */
export function checkKeyScope(keyScope: ApiKeyScope, routeNeeds: ApiKeyScope): void {
  if (scopeAllows(keyScope, routeNeeds)) return
  throw new AppError(
    'forbidden',
    `This API key has the "${keyScope}" scope, which may only send messages (POST /api/v1/messages) and read their status (GET /api/v1/messages/:id); this route needs a "${routeNeeds}" key`,
  )
}

/** What a domain-restricted key's From check is about, as its 403 names it. */
export type KeyDomainSubject = 'message' | 'campaign' | 'default sender'

/**
 * A key restricted to one domain sends only with a From on it (the request's, the template's or the
 * tenant's default, whichever applies); the platform's own sender (no From at all) is not on it
 * either. Subdomains are other domains: a key for `example.com` does not send as `mail.example.com`.
 * The same holds for what the key schedules (a campaign) or sets for every later send (the tenant's
 * default sender): otherwise a restricted key would send from another domain one step removed.
 */
export function checkKeyDomain(
  keyDomain: string | null,
  fromAddress: string | null,
  subject: KeyDomainSubject = 'message',
): void {
  if (keyDomain === null) return
  const fromDomain = fromAddress === null ? null : domainOfHeader(fromAddress)
  if (fromDomain === keyDomain) return
  const what =
    fromDomain === null
      ? `this ${subject} has no From on it (it would go from the platform sender)`
      : `this ${subject} is from ${fromDomain}`
  throw new AppError(
    'forbidden',
    `This API key may only send from the domain ${keyDomain}; ${what}. Name a from address on ${keyDomain}`,
  )
}

function domainOfHeader(header: string): string | null {
  const parsed = parseSenderAddress(header)
  return parsed.ok ? parsed.sender.domain : null
}
