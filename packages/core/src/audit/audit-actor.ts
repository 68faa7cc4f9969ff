/**
 * Who did something to a tenant, as its audit log records it: a signed-in user (`label` is their
 * email then) or an API key (`API key fl_xxxxxxxxx`, no user), and the client address the request
 * came from (the web entry's, TRUSTED_PROXIES applied; null for a job).
 */
export interface AuditActor {
  userId: string | null
  label: string
  ipAddress: string | null
}

/** The audit log's label for a call made with an API key: its visible prefix, never the secret. */
export function apiKeyActorLabel(prefix: string): string {
  return `API key ${prefix}`
}
