import { replayDeadLetter } from '@/server/api/admin/replay-dead-letter'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export async function POST(
  request: Request,
  context: { params: Promise<{ id: string }> },
): Promise<Response> {
  const { id } = await context.params
  return replayDeadLetter(request, id, container().admin)
}
