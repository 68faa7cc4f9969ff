import { z } from 'zod'
import { renderLinkMail } from './link-mail'
import { appName, expiresInMinutes, expiryLine, linkUrl } from './shared-variables'
import type { BuiltInContent } from './types'

export const passwordResetVariables = z.strictObject({ resetUrl: linkUrl, appName, expiresInMinutes })
export type PasswordResetVariables = z.infer<typeof passwordResetVariables>

/** A password-reset link: a button for most readers, the plain URL for clients that block buttons. */
export function renderPasswordReset(variables: PasswordResetVariables): BuiltInContent {
  const app = variables.appName
  const url = variables.resetUrl
  const expiry = expiryLine(variables.expiresInMinutes, 'link')
  const subject = app ? `Reset your ${app} password` : 'Reset your password'
  const intro = app
    ? `We received a request to reset the password of your ${app} account. Choose a new password with the button below.`
    : 'We received a request to reset your password. Choose a new password with the button below.'
  const ignore = "If you didn't ask for this, you can ignore this email: your password stays the same."
  return renderLinkMail({
    subject,
    intro,
    button: 'Reset password',
    url,
    expiry,
    ignore,
    preheader: 'Use the link inside to choose a new password.',
    footer: app
      ? `Sent by ${app} because a password reset was requested for this address.`
      : 'Sent because a password reset was requested for this address.',
  })
}
