import { postContacts } from '@/server/api/v1/post-contacts'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function POST(request: Request): Promise<Response> {
  return postContacts(request, container().api)
}
