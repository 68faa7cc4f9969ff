import { discardDeadLetter } from '@/server/api/admin/discard-dead-letter'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export async function DELETE(
  request: Request,
  context: { params: Promise<{ id: string }> },
): Promise<Response> {
  const { id } = await context.params
  return discardDeadLetter(request, id, container().admin)
}
