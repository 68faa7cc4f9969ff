import { getQueueStats } from '@/server/api/admin/queue-stats'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function GET(request: Request): Promise<Response> {
  return getQueueStats(request, container().admin)
}
