import { hashInvitationToken } from './invitation-token'
import type { StoredInvitation, TeamDeps } from './ports'

/** Why a link does not let anyone in, each with a sentence the accept page shows. */
export type InvitationRefusal = 'invalid' | 'expired' | 'used' | 'revoked'

export type InvitationLookup =
  | { kind: 'open'; invitation: StoredInvitation }
  | { kind: 'refused'; reason: InvitationRefusal; message: string }

export type AcceptOutcome =
  | { kind: 'accepted'; invitation: StoredInvitation; alreadyMember: boolean }
  | { kind: 'refused'; reason: InvitationRefusal; message: string }

const REFUSALS: Record<InvitationRefusal, string> = {
  invalid: 'This invitation link is not valid. Ask whoever invited you for a new one.',
  expired: 'This invitation has expired (links are good for 7 days). Ask whoever invited you for a new one.',
  used: 'This invitation was already accepted; each link works once. Sign in to open the tenant.',
  revoked: 'This invitation was withdrawn. Ask whoever invited you for a new one.',
}

function refused(reason: InvitationRefusal): { kind: 'refused'; reason: InvitationRefusal; message: string } {
  return { kind: 'refused', reason, message: REFUSALS[reason] }
}

/** What a link stands for, without changing anything (the accept page shows it before the click). */
export async function findInvitation(token: string, deps: TeamDeps): Promise<InvitationLookup> {
  // A forged token hashes to nothing stored; its shape is not worth a separate answer.
  const invitation =
    token === '' ? null : await deps.store.findInvitationByTokenHash(hashInvitationToken(token))
  if (!invitation) return refused('invalid')
  if (invitation.revokedAt) return refused('revoked')
  if (invitation.acceptedAt) return refused('used')
  if (invitation.expiresAt.getTime() <= deps.clock.now().getTime()) return refused('expired')
  return { kind: 'open', invitation }
}

/**
 * Joins `userId` (an existing account, or one made for this link) to the invitation's tenant with its
 * role. Single use: a link accepted, revoked, expired or forged changes nothing. A user already a
 * member keeps their role and membership (the link is spent all the same).
 */
export async function acceptInvitation(
  input: { token: string; userId: string; userEmail: string },
  deps: TeamDeps,
): Promise<AcceptOutcome> {
  const found = await findInvitation(input.token, deps)
  if (found.kind === 'refused') return found
  const { invitation } = found
  const result = await deps.store.acceptInvitation(
    { invitationId: invitation.id, userId: input.userId, now: deps.clock.now() },
    {
      actorUserId: input.userId,
      actor: input.userEmail,
      action: 'invitation.accept',
      targetType: 'invitation',
      targetId: invitation.id,
      details: { email: invitation.email, role: invitation.role, userId: input.userId },
    },
  )
  // Lost a race with another accept or a revoke: answer as the link reads now.
  if (!result.accepted) {
    const now = await findInvitation(input.token, deps)
    return now.kind === 'refused' ? now : refused('used')
  }
  return { kind: 'accepted', invitation, alreadyMember: result.alreadyMember }
}
