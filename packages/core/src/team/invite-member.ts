import type { RecipientLimiter } from '../accept/ports'
import { canAssignRole, STANDING_REFUSALS } from '../access/permissions'
import { AppError } from '../errors/app-error'
import {
  generateInvitationToken,
  hashInvitationToken,
  INVITATION_TTL_MS,
  invitationUrl,
} from './invitation-token'
import type {
  InvitationLimits,
  InvitationMailer,
  InvitationWrite,
  StoredInvitation,
  TeamActor,
  TeamDeps,
} from './ports'
import type { InvitationRequest } from './team-input'

export interface InviteMemberDeps extends TeamDeps {
  mailer: InvitationMailer
  /** APP_URL: the invitation link's origin. */
  appUrl: string
  generateToken?: () => string
  /** The tenant's hourly and open invitation limits (config). */
  limits: InvitationLimits
  /**
   * The per-recipient limit of login codes and resets, per (inviting tenant, address): one tenant
   * cannot have the platform mail one inbox over and over, and never spends another's allowance.
   */
  recipientLimiter: RecipientLimiter
}

/**
 * Invites `email` into the tenant with `role`, in this order: the actor may grant the role, the
 * actor's address is verified (403), the address is not already a member (409), the address has
 * allowance left (429, `recipient`); then, under a lock on the tenant, the tenant is not held (403)
 * nor over its hourly (429, `invitations`) or open (422) limit, and the open invitation for the
 * address is replaced (its old link stops working); then the link is mailed. The invitation is the
 * platform's own mail with the tenant's name in it, so a tenant sends none until it is in good
 * standing, as for its own mail. A failed mail leaves the invitation open: inviting again replaces
 * it and sends a fresh link.
 */
export async function inviteMember(
  input: { tenantId: string; request: InvitationRequest; actor: TeamActor },
  deps: InviteMemberDeps,
): Promise<StoredInvitation> {
  const { tenantId, request, actor } = input
  if (!canAssignRole(actor.role, request.role)) {
    throw new AppError('forbidden', `A tenant's ${actor.role} may not invite someone as ${request.role}`)
  }
  if (actor.emailVerified !== true) throw new AppError('forbidden', STANDING_REFUSALS.unverified)
  if (await deps.store.findMemberByEmail({ tenantId, email: request.email })) {
    throw new AppError('conflict', `${request.email} is already a member of this tenant`, {
      details: [{ path: 'email', message: 'is already a member' }],
    })
  }
  const allowance = await deps.recipientLimiter.consume({ tenantId, address: request.email })
  if (!allowance.allowed) {
    throw new AppError(
      'rate_limited',
      `Too many invitations to ${request.email} just now; try again in ${allowance.retryAfterSeconds} s`,
      { retryAfterSeconds: allowance.retryAfterSeconds, limit: 'recipient' },
    )
  }
  const token = (deps.generateToken ?? generateInvitationToken)()
  const now = deps.clock.now()
  const written = await deps.store.replaceOpenInvitation(
    {
      tenantId,
      email: request.email,
      role: request.role,
      tokenHash: hashInvitationToken(token),
      invitedByUserId: actor.userId,
      invitedBy: actor.label,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      now,
      limits: deps.limits,
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
  const invitation = createdOrRefused(written, { now, limits: deps.limits })
  await deps.mailer.sendInvitation({ invitation, acceptUrl: invitationUrl(deps.appUrl, token) })
  return invitation
}

function createdOrRefused(
  written: InvitationWrite,
  context: { now: Date; limits: InvitationLimits },
): StoredInvitation {
  switch (written.kind) {
    case 'created':
      return written.invitation
    case 'held':
      throw new AppError('forbidden', STANDING_REFUSALS.held)
    case 'hourly_limit': {
      const retryAfterSeconds = Math.max(
        1,
        Math.ceil((written.retryAt.getTime() - context.now.getTime()) / 1000),
      )
      throw new AppError(
        'rate_limited',
        `This account sent its ${context.limits.perHour} invitations for this hour; try again in ${Math.ceil(retryAfterSeconds / 60)} min`,
        { retryAfterSeconds, limit: 'invitations' },
      )
    }
    case 'open_limit':
      throw new AppError(
        'unprocessable',
        `This account already has ${written.open} open invitations, the most allowed (${context.limits.maxOpen}). Revoke invitations that are no longer needed (expired ones too), then invite again.`,
      )
  }
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
