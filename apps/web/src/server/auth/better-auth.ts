import { type Database, schema } from '@fairlane/db'
import { betterAuth } from 'better-auth'
import { drizzleAdapter } from 'better-auth/adapters/drizzle'
import { nextCookies } from 'better-auth/next-js'

/** Password rules shown on the sign-up form and enforced by better-auth. */
export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_MAX_LENGTH = 128

export interface AuthSettings {
  db: Database
  /** SESSION_SECRET: signs the session cookie; rotating it signs everyone out. */
  secret: string
  /** APP_URL: where cookies are scoped and which origin may post to `/api/auth`. */
  baseURL: string
  /**
   * nextCookies lets server actions set the cookie through Next.js; off for the web process's fast
   * path, which only reads sessions (the admin API) outside any Next.js request.
   */
  nextCookies?: boolean
}

/**
 * better-auth over our own users/sessions/accounts/verifications tables (packages/db/src/schema/auth.ts).
 * Password hashing, session tokens and cookie signing are all better-auth's; Fairlane only decides
 * which tenant a signed-in user acts for (see session.ts). Built by the container, never on import.
 */
export function createAuth(settings: AuthSettings) {
  return betterAuth({
    appName: 'Fairlane',
    secret: settings.secret,
    baseURL: settings.baseURL,
    trustedOrigins: [new URL(settings.baseURL).origin],
    database: drizzleAdapter(settings.db, { provider: 'pg', usePlural: true, schema }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      autoSignIn: true,
    },
    session: {
      expiresIn: 60 * 60 * 24 * 7,
      // Refresh the expiry at most once a day rather than writing the session row on every request.
      updateAge: 60 * 60 * 24,
      additionalFields: {
        activeTenantId: { type: 'string', required: false, input: false },
      },
    },
    user: {
      additionalFields: {
        // Granted by an operator in the database, never through sign-up or profile updates.
        isPlatformAdmin: { type: 'boolean', required: false, defaultValue: false, input: false },
      },
    },
    // Sign-up must create the tenant and owner too (server/accounts/sign-up-tenant.ts), so better-auth's
    // own HTTP sign-up endpoint is closed; the server action calls auth.api.signUpEmail, which this does not block.
    disabledPaths: ['/sign-up/email'],
    telemetry: { enabled: false },
    // nextCookies lets server actions (sign-in, sign-up, sign-out) set and clear the cookie; keep it last.
    plugins: settings.nextCookies === false ? [] : [nextCookies()],
  })
}

export type Auth = ReturnType<typeof createAuth>
