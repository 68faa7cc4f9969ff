import { getTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { getSuppressionsPageExport } from '@/server/suppressions/page-routes'

export const dynamic = 'force-dynamic'

export function GET(request: Request): Promise<Response> {
  const { database, logger } = container()
  return getSuppressionsPageExport(request, {
    db: database.db,
    logger,
    tenantId: async () => (await getTenantSession())?.tenantId ?? null,
    now: () => new Date(),
  })
}
