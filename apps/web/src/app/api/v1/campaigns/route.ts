import { postCampaign } from '@/server/api/v1/post-campaign'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export function POST(request: Request): Promise<Response> {
  return postCampaign(request, container().api)
}
