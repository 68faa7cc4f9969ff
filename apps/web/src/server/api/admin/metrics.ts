import { createHash, timingSafeEqual } from 'node:crypto'
import { authorizeAdmin } from '../../auth/admin-access'
import { bearerToken } from '../../auth/bearer'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'

/**
 * `GET /api/admin/metrics` → this web process's Prometheus text (default Node metrics, HTTP requests by
 * route and status, request durations). For an admin session or the `ADMIN_TOKEN` bearer like the
 * rest of `/api/admin`, and for the `METRICS_TOKEN` bearer when one is set, so a scraper need not
 * hold the admin token.
 */
export function getWebMetrics(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    if (!isMetricsToken(bearerToken(request), deps.metricsToken)) await authorizeAdmin(request, deps)
    return new Response(await deps.metrics.metrics(), {
      headers: { 'content-type': deps.metrics.contentType, 'cache-control': 'no-store' },
    })
  })
}

function isMetricsToken(presented: string | null, expected: string | undefined): boolean {
  if (presented === null || expected === undefined) return false
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()
  return timingSafeEqual(digest(presented), digest(expected))
}
