import { z } from 'zod'
import { escapeHtml } from '../escape-html'
import { renderLayout, STYLE } from '../layout'
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
  const bodyHtml = [
    `<h1 style="${STYLE.heading}">${escapeHtml(subject)}</h1>`,
    `<p style="${STYLE.paragraph}">${escapeHtml(intro)}</p>`,
    `<p style="margin:8px 0 24px;"><a href="${escapeHtml(url)}" style="${STYLE.button}">Reset password</a></p>`,
    expiry ? `<p style="${STYLE.paragraph}">${escapeHtml(expiry)}</p>` : '',
    `<p style="${STYLE.small}">If the button does not work, copy this address into your browser:<br>` +
      `<a href="${escapeHtml(url)}" style="${STYLE.link}">${escapeHtml(url)}</a></p>`,
    `<p style="${STYLE.small}">${escapeHtml(ignore)}</p>`,
  ]
    .filter(Boolean)
    .join('\n')
  const html = renderLayout({
    title: subject,
    preheader: 'Use the link inside to choose a new password.',
    bodyHtml,
    footer: app
      ? `Sent by ${app} because a password reset was requested for this address.`
      : 'Sent because a password reset was requested for this address.',
  })
  const text = [intro, '', url, '', expiry, expiry ? '' : null, ignore]
    .filter((line) => line !== null)
    .join('\n')
  return { subject, html, text }
}
