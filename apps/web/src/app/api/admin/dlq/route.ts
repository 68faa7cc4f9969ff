import { listDeadLetters } from '@/server/api/admin/list-dead-letters'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function GET(request: Request): Promise<Response> {
  return listDeadLetters(request, container().admin)
}
