import type { RedisClient } from '@fairlane/queue'
import type postgres from 'postgres'
import { checkReadiness } from '../readiness'

/** `GET /api/health/live`: 200 while the process runs; says nothing about dependencies. */
export function healthLive(): Response {
  return Response.json({ ok: true })
}

/** `GET /api/health/ready`: 200 when PostgreSQL and Redis both answer in time; 503 naming the one that did not. */
export async function healthReady(deps: { sql: postgres.Sql; redis: RedisClient }): Promise<Response> {
  const report = await checkReadiness(deps)
  if (report.ready) return Response.json({ status: 'ready', checks: report.checks })
  const failing = Object.entries(report.checks)
    .filter(([, check]) => !check.ok)
    .map(([name]) => name)
  return Response.json(
    { status: 'unavailable', failing, checks: report.checks },
    { status: 503, headers: { 'retry-after': '5' } },
  )
}
