import { createHash, randomBytes } from 'node:crypto'

/** How long an invitation link stays good. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000

/** 32 random bytes, base64url: the link is the credential, so only its SHA-256 is stored. */
export function generateInvitationToken(): string {
  return randomBytes(32).toString('base64url')
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** The accept page's address for a token, under the app's public origin. */
export function invitationUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}/invite/${encodeURIComponent(token)}`
}
