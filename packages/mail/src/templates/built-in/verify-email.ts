import { z } from 'zod'
import { escapeHtml } from '../escape-html'
import { renderLayout, STYLE } from '../layout'
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
  const bodyHtml = [
    `<h1 style="${STYLE.heading}">${escapeHtml(subject)}</h1>`,
    `<p style="${STYLE.paragraph}">${escapeHtml(intro)}</p>`,
    `<p style="margin:8px 0 24px;"><a href="${escapeHtml(url)}" style="${STYLE.button}">Verify email</a></p>`,
    expiry ? `<p style="${STYLE.paragraph}">${escapeHtml(expiry)}</p>` : '',
    `<p style="${STYLE.small}">If the button does not work, copy this address into your browser:<br>` +
      `<a href="${escapeHtml(url)}" style="${STYLE.link}">${escapeHtml(url)}</a></p>`,
    `<p style="${STYLE.small}">${escapeHtml(ignore)}</p>`,
  ]
    .filter(Boolean)
    .join('\n')
  const html = renderLayout({
    title: subject,
    preheader: 'One click confirms your address.',
    bodyHtml,
    footer: app
      ? `Sent by ${app} because this address was used to create an account.`
      : 'Sent because this address was used to create an account.',
  })
  const text = [intro, '', url, '', expiry, expiry ? '' : null, ignore]
    .filter((line) => line !== null)
    .join('\n')
  return { subject, html, text }
}
