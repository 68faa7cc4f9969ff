/**
 * better-auth's `APIError`, recognised by its shape rather than by `instanceof`: Next.js compiles
 * better-auth into its server bundles, so the error the web entry's auth instance throws (loaded by
 * Node) is not an instance of the class a page or server action imports from its bundle.
 */
export interface AuthApiError extends Error {
  name: 'APIError'
  /** The HTTP status, e.g. 429. */
  statusCode: number
  /** better-auth's status name, e.g. `TOO_MANY_REQUESTS`. */
  status: string
  body?: { code?: string; message?: string; [key: string]: unknown }
  headers?: HeadersInit
}

export function isAuthApiError(error: unknown): error is AuthApiError {
  if (!(error instanceof Error) || error.name !== 'APIError') return false
  const candidate = error as Partial<AuthApiError>
  return (
    typeof candidate.statusCode === 'number' &&
    candidate.statusCode >= 100 &&
    candidate.statusCode <= 599 &&
    typeof candidate.status === 'string' &&
    (candidate.body === undefined || (typeof candidate.body === 'object' && candidate.body !== null))
  )
}

/**
 * An error better-auth threw as the JSON answer its own handler would give: its status, its headers
 * (`Retry-After` on a throttled sign-in) and `{ code, message, … }`.
 */
export function authErrorResponse(error: AuthApiError): Response {
  const headers = new Headers(error.headers)
  headers.set('content-type', 'application/json')
  headers.set('cache-control', 'no-store')
  const body = {
    code: error.body?.code ?? error.status,
    message: error.body?.message ?? error.message,
    ...error.body,
  }
  return new Response(JSON.stringify(body), { status: error.statusCode, headers })
}
