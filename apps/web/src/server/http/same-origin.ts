/**
 * Whether a browser request comes from this site: no Origin (a same-origin GET, a non-browser client)
 * or one naming this host. The session-cookie routes outside the API refuse anything else, on top of
 * a body type a cross-site form cannot send, as their CSRF guard.
 */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin')
  if (origin === null) return true
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host')
  try {
    return new URL(origin).host === host
  } catch {
    return false
  }
}
