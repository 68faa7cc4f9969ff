import { APIError, createAuthMiddleware } from 'better-auth/api'
import { CLIENT_ADDRESS_HEADER, throttleUnitOf } from '../http/client-address'
import type { AuthThrottle, SignInAttempt, ThrottleDecision } from './auth-throttle'

export const SIGN_IN_PATH = '/sign-in/email'
export const SIGN_UP_PATH = '/sign-up/email'

/** The code of a throttled sign-in or sign-up, as better-auth's JSON and the server actions see it. */
export const TOO_MANY_ATTEMPTS = 'TOO_MANY_ATTEMPTS'

/**
 * better-auth's `hooks`: they run for every call of an endpoint, through its HTTP handler
 * (`/api/auth/*`, however that is routed) and through `auth.api.*` from a server action alike, so the
 * throttle holds whichever way a sign-in arrives. The client address is only ever the web entry's
 * `x-fairlane-client-ip` (client-address.ts); a call without it (a script calling `auth.api` with no
 * headers) counts as the one client "unknown".
 */
export function throttleHooks(throttle: AuthThrottle) {
  return {
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path === SIGN_IN_PATH) {
        refuseUnlessAllowed(await throttle.beginSignIn(signInAttempt(ctx.body, ctx.headers)))
      } else if (ctx.path === SIGN_UP_PATH) {
        refuseUnlessAllowed(await throttle.beginSignUp(clientOf(ctx.headers)))
      }
    }),
    after: createAuthMiddleware(async (ctx) => {
      if (ctx.path !== SIGN_IN_PATH) return
      // A refused sign-in leaves an error here; the attempt counted in `before` stays counted.
      if (ctx.context.returned instanceof Error) return
      await throttle.signInSucceeded(signInAttempt(ctx.body, ctx.headers))
    }),
  }
}

function clientOf(headers: Headers | undefined): string {
  return throttleUnitOf(headers?.get(CLIENT_ADDRESS_HEADER) ?? null)
}

function signInAttempt(body: unknown, headers: Headers | undefined): SignInAttempt {
  const email = (body as { email?: unknown } | undefined)?.email
  return { email: typeof email === 'string' ? email : '', client: clientOf(headers) }
}

function refuseUnlessAllowed(decision: ThrottleDecision): void {
  if (decision.allowed) return
  const wait = waitInWords(decision.retryAfterSec)
  const message =
    decision.limit === 'sign-up'
      ? `Too many sign-ups from your network. Try again in ${wait}.`
      : `Too many sign-in attempts. Try again in ${wait}.`
  throw new APIError(
    'TOO_MANY_REQUESTS',
    { code: TOO_MANY_ATTEMPTS, message, limit: decision.limit, retryAfterSeconds: decision.retryAfterSec },
    { 'Retry-After': String(decision.retryAfterSec), 'Cache-Control': 'no-store' },
  )
}

export function waitInWords(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}
