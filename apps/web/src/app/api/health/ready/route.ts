import { container } from '@/server/container'
import { checkReadiness } from '@/server/readiness'

export const dynamic = 'force-dynamic'

/** 200 when PostgreSQL and Redis both answer in time; 503 naming the one that did not. */
export async function GET(): Promise<Response> {
  const { database, redis } = container()
  const report = await checkReadiness({ sql: database.sql, redis })
  if (report.ready) return Response.json({ status: 'ready', checks: report.checks })
  const failing = Object.entries(report.checks)
    .filter(([, check]) => !check.ok)
    .map(([name]) => name)
  return Response.json(
    { status: 'unavailable', failing, checks: report.checks },
    { status: 503, headers: { 'retry-after': '5' } },
  )
}
