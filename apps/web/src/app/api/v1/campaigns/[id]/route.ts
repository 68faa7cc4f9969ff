import { getCampaign } from '@/server/api/v1/get-campaign'
import { container } from '@/server/container'

export const dynamic = 'force-dynamic'

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params
  return getCampaign(request, id, container().api)
}
