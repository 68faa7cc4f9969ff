import { escapeHtml } from '../escape-html'
import { renderLayout, STYLE } from '../layout'
import type { BuiltInContent } from './types'

/** What a mail built around one link says; the layout (button, plain URL, expiry) is the same for all. */
export interface LinkMail {
  subject: string
  intro: string
  button: string
  url: string
  /** "This link expires in 60 minutes.", or null when the request gave no expiry. */
  expiry: string | null
  /** What to do when the mail was not asked for. */
  ignore: string
  preheader: string
  footer: string
}

/**
 * A mail whose point is one link (password reset, address verification): a button for most readers,
 * the plain URL for clients that block buttons, and the same words in the text part.
 */
export function renderLinkMail(mail: LinkMail): BuiltInContent {
  const { subject, intro, url, expiry, ignore } = mail
  const bodyHtml = [
    `<h1 style="${STYLE.heading}">${escapeHtml(subject)}</h1>`,
    `<p style="${STYLE.paragraph}">${escapeHtml(intro)}</p>`,
    `<p style="margin:8px 0 24px;"><a href="${escapeHtml(url)}" style="${STYLE.button}">${escapeHtml(mail.button)}</a></p>`,
    expiry ? `<p style="${STYLE.paragraph}">${escapeHtml(expiry)}</p>` : '',
    `<p style="${STYLE.small}">If the button does not work, copy this address into your browser:<br>` +
      `<a href="${escapeHtml(url)}" style="${STYLE.link}">${escapeHtml(url)}</a></p>`,
    `<p style="${STYLE.small}">${escapeHtml(ignore)}</p>`,
  ]
    .filter(Boolean)
    .join('\n')
  const html = renderLayout({ title: subject, preheader: mail.preheader, bodyHtml, footer: mail.footer })
  const text = [intro, '', url, '', expiry, expiry ? '' : null, ignore]
    .filter((line) => line !== null)
    .join('\n')
  return { subject, html, text }
}
