import { unsubscribeDeps } from '@/server/unsubscribe/deps'
import { showUnsubscribe, submitUnsubscribe } from '@/server/unsubscribe/unsubscribe-page'

export const dynamic = 'force-dynamic'

type Context = { params: Promise<{ token: string }> }

/** Public: the signed token is the only credential (see `submitUnsubscribe`). */
export async function GET(_request: Request, context: Context): Promise<Response> {
  const { token } = await context.params
  return showUnsubscribe(token, unsubscribeDeps())
}

export async function POST(request: Request, context: Context): Promise<Response> {
  const { token } = await context.params
  return submitUnsubscribe(request, token, unsubscribeDeps())
}
