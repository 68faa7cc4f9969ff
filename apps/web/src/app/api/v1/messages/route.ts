import { postMessage } from '@/server/api/v1/post-message'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function POST(request: Request): Promise<Response> {
  return postMessage(request, container().api)
}
