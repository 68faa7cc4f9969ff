import { recordTrackingHit, type TrackingDeps } from '@fairlane/core'
import type { Logger } from '../logger'

/** A transparent 1×1 GIF (42 bytes). */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

/** Every open must reach us: no cache of the pixel or the redirect, neither the browser's nor a proxy's. */
const NO_CACHE = {
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0, private',
  pragma: 'no-cache',
  expires: '0',
}

export interface TrackingRouteDeps extends TrackingDeps {
  logger: Logger
}

function notFound(): Response {
  return new Response('Not found\n', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...NO_CACHE },
  })
}

function hitOf(request: Request, kind: 'open' | 'click', token: string) {
  return {
    kind,
    token,
    userAgent: request.headers.get('user-agent'),
    automated: request.method === 'HEAD',
  }
}

/**
 * `GET /t/o/:token`: records the open, answers the pixel. No session, one statement; a token that is
 * not genuine answers 404 and writes nothing.
 */
export async function openPixel(request: Request, token: string, deps: TrackingRouteDeps): Promise<Response> {
  const outcome = await recordTrackingHit(hitOf(request, 'open', token), deps)
  if (outcome.kind !== 'opened') return notFound()
  return new Response(new Uint8Array(PIXEL), {
    status: 200,
    headers: { 'content-type': 'image/gif', 'content-length': String(PIXEL.length), ...NO_CACHE },
  })
}

/**
 * `GET /t/c/:token`: records the click, then 302 to the URL stored for the token's link — only ever
 * that (the token names a link id of the message's own tenant and campaign, never a URL), so it is
 * no open redirect. A stored URL that cannot be a Location (it was checked when the mail was sent)
 * is logged and answered 404.
 */
export async function clickRedirect(
  request: Request,
  token: string,
  deps: TrackingRouteDeps,
): Promise<Response> {
  const outcome = await recordTrackingHit(hitOf(request, 'click', token), deps)
  if (outcome.kind !== 'redirect') return notFound()
  let location: string
  try {
    location = new URL(outcome.url).href
  } catch (error) {
    deps.logger.error({ err: error }, 'tracked link holds an unusable URL')
    return notFound()
  }
  return new Response(null, { status: 302, headers: { location, ...NO_CACHE } })
}
