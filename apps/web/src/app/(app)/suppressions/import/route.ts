import { getTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { postSuppressionsPageImport } from '@/server/suppressions/page-routes'

export const dynamic = 'force-dynamic'

export function POST(request: Request): Promise<Response> {
  const { database, logger } = container()
  return postSuppressionsPageImport(request, {
    db: database.db,
    logger,
    tenantId: async () => (await getTenantSession())?.tenantId ?? null,
    now: () => new Date(),
  })
}
