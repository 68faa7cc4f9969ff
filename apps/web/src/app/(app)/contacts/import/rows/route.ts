import { getTenantSession } from '@/server/auth/session'
import { postImportRows } from '@/server/contacts/import-rows'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function POST(request: Request): Promise<Response> {
  const { database, logger } = container()
  return postImportRows(request, {
    db: database.db,
    logger,
    tenantId: async () => (await getTenantSession())?.tenantId ?? null,
  })
}
