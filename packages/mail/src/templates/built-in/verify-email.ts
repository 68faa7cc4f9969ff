import { z } from 'zod'
import { renderLinkMail } from './link-mail'
import { appName, expiresInMinutes, expiryLine, linkUrl } from './shared-variables'
import type { BuiltInContent } from './types'

export const verifyEmailVariables = z.strictObject({ verifyUrl: linkUrl, appName, expiresInMinutes })
export type VerifyEmailVariables = z.infer<typeof verifyEmailVariables>

/** An address confirmation link: a button for most readers, the plain URL for clients that block buttons. */
export function renderVerifyEmail(variables: VerifyEmailVariables): BuiltInContent {
  const app = variables.appName
  const url = variables.verifyUrl
  const expiry = expiryLine(variables.expiresInMinutes, 'link')
  const subject = app ? `Verify your email for ${app}` : 'Verify your email address'
  const intro = app
    ? `Confirm that this address belongs to your ${app} account with the button below.`
    : 'Confirm that this address belongs to your account with the button below.'
  const ignore =
    "If you didn't create an account, you can ignore this email: nothing happens without the link."
  return renderLinkMail({
    subject,
    intro,
    button: 'Verify email',
    url,
    expiry,
    ignore,
    preheader: 'One click confirms your address.',
    footer: app
      ? `Sent by ${app} because this address was used to create an account.`
      : 'Sent because this address was used to create an account.',
  })
}
