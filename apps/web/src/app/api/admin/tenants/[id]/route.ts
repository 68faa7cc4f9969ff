import { patchTenant } from '@/server/api/admin/update-tenant'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export async function PATCH(
  request: Request,
  context: { params: Promise<{ id: string }> },
): Promise<Response> {
  const { id } = await context.params
  return patchTenant(request, id, container().admin)
}
