import { type Database, schema } from '@fairlane/db'
import { betterAuth } from 'better-auth'
import { drizzleAdapter } from 'better-auth/adapters/drizzle'
import { nextCookies } from 'better-auth/next-js'
import { type AuthMailSettings, authMailOptions } from '../accounts/auth-mail'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import type { AuthThrottle } from './auth-throttle'
import { throttleHooks } from './auth-throttle-hooks'

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
  /** Every instance throttles sign-in and sign-up (auth-throttle.ts), whatever it is made for. */
  throttle: AuthThrottle
  /**
   * Verification and reset mail through the platform tenant (accounts/auth-mail.ts). Without it (the
   * handlers' tests) better-auth refuses to send either, and sign-up mails nobody.
   */
  accountMail?: AuthMailSettings
}

/**
 * better-auth over our own users/sessions/accounts/verifications tables (packages/db/src/schema/auth.ts).
 * Password hashing, session tokens and cookie signing are all better-auth's; Fairlane only decides
 * which tenant a signed-in user acts for (see session.ts). Built by the container, never on import.
 */
export function createAuth(settings: AuthSettings) {
  const mail = settings.accountMail ? authMailOptions(settings.accountMail) : null
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
      // Sign-in works before the address is verified (the issue asks for it): what waits is sending
      // and API keys, gated by core's decideAccess (good standing), not by better-auth.
      requireEmailVerification: false,
      ...mail?.emailAndPassword,
    },
    ...(mail ? { emailVerification: mail.emailVerification } : {}),
    // A reset token (`reset-password:<token>`) is a password for an hour: the verifications table
    // keeps only its hash, so a read of the table (a backup, a replica) cannot take over an account.
    // Lookups hash what is presented; a row stored in clear before this still matches (better-auth
    // tries the plain identifier too), so links mailed before an upgrade keep working until they expire.
    verification: { storeIdentifier: 'hashed' },
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
        // Read with the session so every page knows the reader's zone; written only by the /account
        // page's action (core's updateProfile validates it), never through better-auth's update-user.
        timeZone: { type: 'string', required: false, input: false },
      },
    },
    // Sign-up must create the tenant and owner too (server/accounts/sign-up-tenant.ts), so better-auth's
    // own HTTP sign-up endpoint is closed; the server action calls auth.api.signUpEmail, which this does not block.
    disabledPaths: ['/sign-up/email'],
    telemetry: { enabled: false },
    hooks: throttleHooks(settings.throttle),
    // The client's address is the one the web entry derived from the socket and TRUSTED_PROXIES;
    // better-auth's default, X-Forwarded-For, is whatever the client chose to send.
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    // better-auth's own limiter (per process, in memory; on in production) keeps guarding its other
    // endpoints; sign-in and sign-up are ours alone, counted in Redis across processes.
    rateLimit: { customRules: { '/sign-in/*': false, '/sign-up/*': false } },
    // nextCookies lets server actions (sign-in, sign-up, sign-out) set and clear the cookie; keep it last.
    plugins: settings.nextCookies === false ? [] : [nextCookies()],
  })
}

export type Auth = ReturnType<typeof createAuth>
