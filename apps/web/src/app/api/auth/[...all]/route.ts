import { container } from '@/server/container'

/**
 * better-auth's own endpoints (`/api/auth/*`). The app's pages use server actions instead, but
 * these stay available for a future client and for session refresh. The auth instance is resolved
 * per request so nothing is created when Next imports the route at build time.
 */
export function GET(request: Request): Promise<Response> {
  return container().auth.handler(request)
}

export function POST(request: Request): Promise<Response> {
  return container().auth.handler(request)
}
