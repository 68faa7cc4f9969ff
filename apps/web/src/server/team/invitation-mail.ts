import type { StoredInvitation } from '@fairlane/core'

const ROLE_WORDS = {
  owner: 'an owner (everything, including the plan)',
  admin: 'an admin (members, domains, API keys, webhooks, settings)',
  member: 'a member (contacts, lists, templates, campaigns)',
} as const

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  )

/**
 * The invitation's mail as custom content (subject, HTML, text) for the account mailer: who invited,
 * into which tenant, with which role, the link, and when it stops working.
 */
export function invitationMail(input: { invitation: StoredInvitation; acceptUrl: string; appName: string }): {
  to: string
  subject: string
  html: string
  text: string
} {
  const { invitation, acceptUrl, appName } = input
  const expires = `${invitation.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`
  const subject = `${invitation.invitedBy} invited you to ${invitation.tenantName} on ${appName}`
  const lines = [
    `${invitation.invitedBy} invited you to join ${invitation.tenantName} on ${appName} as ${ROLE_WORDS[invitation.role]}.`,
    `Accept the invitation: ${acceptUrl}`,
    `The link works once and until ${expires}. If you did not expect this, ignore this mail.`,
  ]
  const html = [
    `<p>${escapeHtml(lines[0] ?? '')}</p>`,
    `<p><a href="${escapeHtml(acceptUrl)}">Accept the invitation</a></p>`,
    `<p>${escapeHtml(lines[2] ?? '')}</p>`,
  ].join('\n')
  return { to: invitation.email, subject, html, text: `${lines.join('\n\n')}\n` }
}
