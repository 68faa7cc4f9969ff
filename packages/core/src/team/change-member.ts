import { canAssignRole } from '../access/permissions'
import type { MembershipRole } from '../domain/statuses'
import { AppError } from '../errors/app-error'
import type { MembershipChange, TeamActor, TeamDeps, TeamMember } from './ports'

function memberNotFound(userId: string): AppError {
  return new AppError('not_found', `No member with user id ${JSON.stringify(userId)}`)
}

const LAST_OWNER = 'The last owner cannot be demoted, removed or leave: make someone else an owner first'

function settle(change: MembershipChange, userId: string): void {
  if (change === 'not_member') throw memberNotFound(userId)
  if (change === 'last_owner') throw new AppError('unprocessable', LAST_OWNER)
}

/**
 * Gives a member another role. Only an owner gives or takes the owner role (`canAssignRole`, for the
 * role before and after); the tenant always keeps an owner (422, checked by the store under a lock,
 * so two owners demoting each other at once cannot both succeed).
 */
export async function changeMemberRole(
  input: { tenantId: string; userId: string; role: MembershipRole; actor: TeamActor },
  deps: TeamDeps,
): Promise<TeamMember> {
  const { tenantId, userId, role, actor } = input
  const member = await deps.store.findMember({ tenantId, userId })
  if (!member) throw memberNotFound(userId)
  if (!canAssignRole(actor.role, role) || !canAssignRole(actor.role, member.role)) {
    throw new AppError('forbidden', `A tenant's ${actor.role} may not change a ${member.role} into a ${role}`)
  }
  if (member.role === role) return member
  const change = await deps.store.setMemberRole(
    { tenantId, userId, role },
    {
      actorUserId: actor.userId,
      actor: actor.label,
      ipAddress: actor.ipAddress ?? null,
      action: 'member.role_change',
      targetType: 'member',
      targetId: userId,
      details: { email: member.email, from: member.role, to: role },
    },
  )
  settle(change, userId)
  return { ...member, role }
}

/**
 * Removes a member; a user removing themself is leaving, which every role may do. Removing someone
 * else needs `members.manage`, and an owner only an owner removes. The last owner stays (422).
 */
export async function removeMember(
  input: { tenantId: string; userId: string; actor: TeamActor },
  deps: TeamDeps,
): Promise<TeamMember> {
  const { tenantId, userId, actor } = input
  const member = await deps.store.findMember({ tenantId, userId })
  if (!member) throw memberNotFound(userId)
  const leaving = actor.userId === userId
  if (!leaving && !canAssignRole(actor.role, member.role)) {
    throw new AppError('forbidden', `A tenant's ${actor.role} may not remove a ${member.role}`)
  }
  const change = await deps.store.deleteMember(
    { tenantId, userId },
    {
      actorUserId: actor.userId,
      actor: actor.label,
      ipAddress: actor.ipAddress ?? null,
      action: leaving ? 'member.leave' : 'member.remove',
      targetType: 'member',
      targetId: userId,
      details: { email: member.email, role: member.role },
    },
  )
  settle(change, userId)
  return member
}
