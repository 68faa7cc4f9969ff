import { AppError } from '@fairlane/core/errors'
import type { Database } from '@fairlane/db'
import { respond } from '../http/errors'
import { sameOrigin } from '../http/same-origin'
import type { Logger } from '../logger'
import { exportSuppressionsCsv, importSuppressionsCsv } from './suppressions-csv'

export interface SuppressionPageRouteDeps {
  db: Database
  logger: Logger
  /** The signed-in tenant, or null (answered 401: the page says "sign in again"). */
  tenantId(): Promise<string | null>
  now(): Date
}

async function signedInTenant(deps: SuppressionPageRouteDeps): Promise<string> {
  const tenantId = await deps.tenantId()
  if (tenantId === null) throw new AppError('unauthorized', 'Your session has ended; sign in again')
  return tenantId
}

/**
 * `POST /suppressions/import`: the Suppressions page's CSV import, signed in by session cookie, read
 * and checked exactly as `POST /api/v1/suppressions/import`. The body must be `text/csv` or
 * `text/plain`… which a cross-site form can send as `text/plain`, so a foreign Origin is refused too.
 */
export function postSuppressionsPageImport(
  request: Request,
  deps: SuppressionPageRouteDeps,
): Promise<Response> {
  return respond(deps.logger, async () => {
    if (!sameOrigin(request)) throw new AppError('forbidden', 'Cross-site requests are not accepted')
    const tenantId = await signedInTenant(deps)
    const report = await importSuppressionsCsv(request, { tenantId, db: deps.db })
    return Response.json(report, { headers: { 'cache-control': 'no-store' } })
  })
}

/** `GET /suppressions/export?email=&reason=`: the page's download, the same CSV as the API's export. */
export function getSuppressionsPageExport(
  request: Request,
  deps: SuppressionPageRouteDeps,
): Promise<Response> {
  return respond(deps.logger, async () => {
    const tenantId = await signedInTenant(deps)
    return exportSuppressionsCsv({
      tenantId,
      query: Object.fromEntries(new URL(request.url).searchParams),
      db: deps.db,
      logger: deps.logger,
      now: deps.now(),
    })
  })
}
