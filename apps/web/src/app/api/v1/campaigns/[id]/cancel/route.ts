import { postCampaignCancel } from '@/server/api/v1/post-campaign-cancel'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export async function POST(
  request: Request,
  context: { params: Promise<{ id: string }> },
): Promise<Response> {
  const { id } = await context.params
  return postCampaignCancel(request, id, container().api)
}
