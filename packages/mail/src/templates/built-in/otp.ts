import { z } from 'zod'
import { escapeHtml } from '../escape-html'
import { renderLayout, STYLE } from '../layout'
import { appName, expiresInMinutes, expiryLine } from './shared-variables'
import type { BuiltInContent } from './types'

export const otpVariables = z.strictObject({
  code: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .regex(/^[A-Za-z0-9]{4,10}$/, 'must be 4 to 10 letters or digits'),
  appName,
  expiresInMinutes,
})
export type OtpVariables = z.infer<typeof otpVariables>

/**
 * A one-time code. The code is deliberately kept out of the subject and the preheader: both show in
 * lock-screen notifications, inbox lists and mail logs, where a code is readable by anyone near the
 * phone. The reader opens the message to see it.
 */
export function renderOtp(variables: OtpVariables): BuiltInContent {
  const app = variables.appName
  const expiry = expiryLine(variables.expiresInMinutes, 'code')
  const subject = app ? `Your ${app} verification code` : 'Your verification code'
  const intro = app ? `Enter this code in ${app} to continue:` : 'Enter this code to continue:'
  const ignore =
    "If you didn't ask for this code, you can ignore this email: someone may have typed your address by mistake."
  const bodyHtml = [
    `<h1 style="${STYLE.heading}">${escapeHtml(subject)}</h1>`,
    `<p style="${STYLE.paragraph}">${escapeHtml(intro)}</p>`,
    `<p style="${STYLE.code}">${escapeHtml(variables.code)}</p>`,
    expiry ? `<p style="${STYLE.paragraph}">${escapeHtml(expiry)}</p>` : '',
    `<p style="${STYLE.small}">${escapeHtml(ignore)} Never share this code with anyone.</p>`,
  ]
    .filter(Boolean)
    .join('\n')
  const html = renderLayout({
    title: subject,
    preheader: app ? `Your one-time code for ${app} is inside.` : 'Your one-time code is inside.',
    bodyHtml,
    footer: app
      ? `Sent by ${app} because a code was requested for this address.`
      : 'Sent because a code was requested for this address.',
  })
  const text = [
    intro,
    '',
    `    ${variables.code}`,
    '',
    expiry,
    expiry ? '' : null,
    ignore,
    'Never share this code with anyone.',
  ]
    .filter((line) => line !== null)
    .join('\n')
  return { subject, html, text }
}
