'use server'

import {
  changeMemberRole,
  inviteMember,
  MEMBERSHIP_ROLES,
  type MembershipRole,
  parseInvitationRequest,
  removeMember,
  revokeInvitation,
  type TeamActor,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { authorize, type TenantSession } from '@/server/auth/session'
import { uiAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { teamUseCaseDeps, userActor } from '@/server/team/team-deps'

export interface InviteFormState {
  values: { email: string; role: string }
  errors?: { email?: string; role?: string; form?: string }
  notice?: string
}

/** Invites by the same use case as `POST /api/v1/invitations`; the refusal (409, bad address) by its field. */
export async function inviteMemberAction(_state: InviteFormState, form: FormData): Promise<InviteFormState> {
  const { session } = await authorize('members.manage')
  const values = { email: String(form.get('email') ?? ''), role: String(form.get('role') ?? 'member') }
  try {
    const invitation = await inviteMember(
      {
        tenantId: session.tenantId,
        request: parseInvitationRequest(values),
        actor: await teamActor(session),
      },
      teamUseCaseDeps(container().api),
    )
    revalidatePath('/members')
    return { values: { email: '', role: 'member' }, notice: `Invitation sent to ${invitation.email}.` }
  } catch (error) {
    if (!isAppError(error)) throw error
    const issue = error.details?.[0]
    const field = issue?.path === 'email' || issue?.path === 'role' ? issue.path : 'form'
    return { values, errors: { [field]: field === 'form' ? error.message : issue?.message } }
  }
}

/** Back to the Members page with the refusal in words (403, 404, 422), or a notice. */
async function settle(run: () => Promise<unknown>, notice: string): Promise<never> {
  try {
    await run()
  } catch (error) {
    if (!isAppError(error)) throw error
    redirect(`/members?${new URLSearchParams({ error: error.message })}`)
  }
  revalidatePath('/members')
  redirect(`/members?notice=${notice}`)
}

export async function revokeInvitationAction(form: FormData): Promise<void> {
  const { session } = await authorize('members.manage')
  const invitationId = String(form.get('invitationId') ?? '')
  await settle(async () => {
    if (!isUuid(invitationId)) return
    await revokeInvitation(
      { tenantId: session.tenantId, invitationId, actor: await teamActor(session) },
      teamUseCaseDeps(container().api),
    )
  }, 'revoked')
}

export async function changeMemberRoleAction(form: FormData): Promise<void> {
  const { session } = await authorize('members.manage')
  const userId = String(form.get('userId') ?? '')
  const role = String(form.get('role') ?? '')
  await settle(async () => {
    if (!(MEMBERSHIP_ROLES as readonly string[]).includes(role)) return
    await changeMemberRole(
      { tenantId: session.tenantId, userId, role: role as MembershipRole, actor: await teamActor(session) },
      teamUseCaseDeps(container().api),
    )
  }, 'role-changed')
}

export async function removeMemberAction(form: FormData): Promise<void> {
  const { session } = await authorize('members.manage')
  const userId = String(form.get('userId') ?? '')
  const actor = await teamActor(session)
  await settle(
    () => removeMember({ tenantId: session.tenantId, userId, actor }, teamUseCaseDeps(container().api)),
    'removed',
  )
}

/** Leaving: every role may remove itself, except the last owner (422, said on the page). */
export async function leaveTenantAction(): Promise<void> {
  const { session } = await authorize('tenant.read')
  try {
    await removeMember(
      { tenantId: session.tenantId, userId: session.userId, actor: await teamActor(session) },
      teamUseCaseDeps(container().api),
    )
  } catch (error) {
    if (!isAppError(error)) throw error
    redirect(`/members?${new URLSearchParams({ error: error.message })}`)
  }
  revalidatePath('/', 'layout')
  redirect('/dashboard')
}

/** The signed-in user as the team use cases' actor, with the client address for the audit log. */
async function teamActor(session: TenantSession): Promise<TeamActor> {
  const { ipAddress } = await uiAuditActor(session)
  return userActor(session, ipAddress)
}
