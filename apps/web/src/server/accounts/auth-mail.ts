import type { AccountMailer } from './account-mail'
import { PLATFORM_TENANT_NAME } from './account-mail'

/** `SIGNUP_MODE`: what a new account may do before anyone looks at it (packages/config). */
export type SignupMode = 'open' | 'verify' | 'approve'

/** A verification link lives a day: long enough for tomorrow morning's inbox, as the issue asks. */
export const VERIFY_EMAIL_EXPIRES_IN_SEC = 24 * 60 * 60
/** A reset link lives an hour: whoever holds it holds the account. */
export const RESET_PASSWORD_EXPIRES_IN_SEC = 60 * 60

/** Where the verification link lands after better-auth checked it (`?error=` is added on failure). */
export const VERIFY_EMAIL_LANDING = '/verify-email'
/** Where the reset link lands after better-auth checked it (`?token=` or `?error=INVALID_TOKEN`). */
export const RESET_PASSWORD_LANDING = '/reset-password'

export interface AuthMailSettings {
  mailer: AccountMailer
  signupMode: SignupMode
  logger: { error(object: object, message: string): void; info(object: object, message: string): void }
}

interface LinkMail {
  user: { id: string; email: string }
  url: string
}

/**
 * better-auth's verification and reset callbacks, sending through the platform tenant's account
 * mailer: the built-in `verify-email` and `password-reset` templates, so both ride the critical lane.
 * A failure is logged and swallowed: a reset request must answer the same whether or not the address
 * exists, and a sign-up must not fail because its first mail was refused (the user can resend).
 */
export function authMailOptions(settings: AuthMailSettings) {
  const send = async (kind: 'verify-email' | 'password-reset', mail: LinkMail) => {
    const expiresInMinutes =
      (kind === 'verify-email' ? VERIFY_EMAIL_EXPIRES_IN_SEC : RESET_PASSWORD_EXPIRES_IN_SEC) / 60
    const link = kind === 'verify-email' ? { verifyUrl: mail.url } : { resetUrl: mail.url }
    try {
      const { id } = await settings.mailer.send({
        to: mail.user.email,
        template: kind,
        variables: { ...link, appName: PLATFORM_TENANT_NAME, expiresInMinutes },
      })
      settings.logger.info({ kind, userId: mail.user.id, messageId: id }, 'account mail accepted')
    } catch (error) {
      settings.logger.error({ err: error, kind, userId: mail.user.id }, 'account mail refused')
    }
  }
  return {
    emailVerification: {
      // SIGNUP_MODE=open counts every address as good enough, so it mails nobody at sign-up; the
      // banner's "verify" button still works for whoever wants the mark.
      sendOnSignUp: settings.signupMode !== 'open',
      expiresIn: VERIFY_EMAIL_EXPIRES_IN_SEC,
      sendVerificationEmail: (mail: LinkMail) => send('verify-email', mail),
    },
    emailAndPassword: {
      resetPasswordTokenExpiresIn: RESET_PASSWORD_EXPIRES_IN_SEC,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: (mail: LinkMail) => send('password-reset', mail),
    },
  }
}
