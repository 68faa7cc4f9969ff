import { describe, expect, it } from 'vitest'
import type { AccountMail, AccountMailer } from './account-mail'
import { authMailOptions, RESET_PASSWORD_EXPIRES_IN_SEC, VERIFY_EMAIL_EXPIRES_IN_SEC } from './auth-mail'

function recordingMailer(fail = false) {
  const sent: AccountMail[] = []
  const mailer: AccountMailer = {
    async send(mail) {
      if (fail) throw new Error('recipient limit reached')
      sent.push(mail)
      return { id: `m${sent.length}` }
    },
  }
  const logged: { level: string; message: string }[] = []
  const logger = {
    info: (_: object, message: string) => logged.push({ level: 'info', message }),
    error: (_: object, message: string) => logged.push({ level: 'error', message }),
  }
  return { mailer, sent, logged, logger }
}

const user = { id: 'u1', email: 'ada@example.test' }

describe('authMailOptions', () => {
  it('sends verification as the built-in verify-email (24 h) and reset as password-reset (1 h)', async () => {
    const { mailer, sent, logger } = recordingMailer()
    const options = authMailOptions({ mailer, signupMode: 'verify', logger })
    await options.emailVerification.sendVerificationEmail({ user, url: 'https://app.test/v?token=1' })
    await options.emailAndPassword.sendResetPassword({ user, url: 'https://app.test/r/2' })
    expect(sent).toEqual([
      {
        to: 'ada@example.test',
        template: 'verify-email',
        variables: { verifyUrl: 'https://app.test/v?token=1', appName: 'Fairlane', expiresInMinutes: 1440 },
      },
      {
        to: 'ada@example.test',
        template: 'password-reset',
        variables: { resetUrl: 'https://app.test/r/2', appName: 'Fairlane', expiresInMinutes: 60 },
      },
    ])
    expect(options.emailVerification.expiresIn).toBe(VERIFY_EMAIL_EXPIRES_IN_SEC)
    expect(options.emailAndPassword).toMatchObject({
      resetPasswordTokenExpiresIn: RESET_PASSWORD_EXPIRES_IN_SEC,
      revokeSessionsOnPasswordReset: true,
    })
  })

  it('mails at sign-up unless SIGNUP_MODE is open', () => {
    const { mailer, logger } = recordingMailer()
    expect(authMailOptions({ mailer, signupMode: 'verify', logger }).emailVerification.sendOnSignUp).toBe(
      true,
    )
    expect(authMailOptions({ mailer, signupMode: 'approve', logger }).emailVerification.sendOnSignUp).toBe(
      true,
    )
    expect(authMailOptions({ mailer, signupMode: 'open', logger }).emailVerification.sendOnSignUp).toBe(false)
  })

  it('logs a refused mail instead of failing the request (a reset must answer the same either way)', async () => {
    const { mailer, logged, logger } = recordingMailer(true)
    const options = authMailOptions({ mailer, signupMode: 'verify', logger })
    await expect(
      options.emailAndPassword.sendResetPassword({ user, url: 'https://app.test/r/3' }),
    ).resolves.toBeUndefined()
    expect(logged).toEqual([{ level: 'error', message: 'account mail refused' }])
  })
})
