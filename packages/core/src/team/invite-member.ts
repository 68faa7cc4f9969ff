import { canAssignRole } from '../access/permissions'
import { AppError } from '../errors/app-error'
import {
  generateInvitationToken,
  hashInvitationToken,
  INVITATION_TTL_MS,
  invitationUrl,
} from './invitation-token'
import type { InvitationMailer, StoredInvitation, TeamActor, TeamDeps } from './ports'
import type { InvitationRequest } from './team-input'

export interface InviteMemberDeps extends TeamDeps {
  mailer: InvitationMailer
  /** APP_URL: the invitation link's origin. */
  appUrl: string
  generateToken?: () => string
}

/**
 * Invites `email` into the tenant with `role`, in this order: the actor may grant the role, the
 * address is not already a member (409), the open invitation for it is replaced (its old link stops
 * working), then the link is mailed. A failed mail leaves the invitation open: inviting again
 * replaces it and sends a fresh link.
 */
export async function inviteMember(
  input: { tenantId: string; request: InvitationRequest; actor: TeamActor },
  deps: InviteMemberDeps,
): Promise<StoredInvitation> {
  const { tenantId, request, actor } = input
  if (!canAssignRole(actor.role, request.role)) {
    throw new AppError('forbidden', `A tenant's ${actor.role} may not invite someone as ${request.role}`)
  }
  if (await deps.store.findMemberByEmail({ tenantId, email: request.email })) {
    throw new AppError('conflict', `${request.email} is already a member of this tenant`, {
      details: [{ path: 'email', message: 'is already a member' }],
    })
  }
  const token = (deps.generateToken ?? generateInvitationToken)()
  const now = deps.clock.now()
  const invitation = await deps.store.replaceOpenInvitation(
    {
      tenantId,
      email: request.email,
      role: request.role,
      tokenHash: hashInvitationToken(token),
      invitedByUserId: actor.userId,
      invitedBy: actor.label,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      now,
    },
    (invitationId) => ({
      actorUserId: actor.userId,
      actor: actor.label,
      ipAddress: actor.ipAddress ?? null,
      action: 'invitation.create',
      targetType: 'invitation',
      targetId: invitationId,
      details: { email: request.email, role: request.role },
    }),
  )
  await deps.mailer.sendInvitation({ invitation, acceptUrl: invitationUrl(deps.appUrl, token) })
  return invitation
}

/** Revokes an open invitation: its link stops working. Another tenant's or a closed one → 404. */
export async function revokeInvitation(
  input: { tenantId: string; invitationId: string; actor: TeamActor },
  deps: TeamDeps,
): Promise<StoredInvitation> {
  const revoked = await deps.store.revokeInvitation(
    { tenantId: input.tenantId, invitationId: input.invitationId, now: deps.clock.now() },
    {
      actorUserId: input.actor.userId,
      actor: input.actor.label,
      ipAddress: input.actor.ipAddress ?? null,
      action: 'invitation.revoke',
      targetType: 'invitation',
      targetId: input.invitationId,
    },
  )
  if (!revoked) {
    throw new AppError('not_found', `No open invitation with id ${JSON.stringify(input.invitationId)}`)
  }
  return revoked
}
