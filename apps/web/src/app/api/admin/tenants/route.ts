import { postTenant } from '@/server/api/admin/create-tenant'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function POST(request: Request): Promise<Response> {
  return postTenant(request, container().admin)
}
