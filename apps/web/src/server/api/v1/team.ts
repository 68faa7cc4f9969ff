import {
  changeMemberRole,
  inviteMember,
  parseInvitationRequest,
  parseMemberRolePatch,
  removeMember,
  revokeInvitation,
  type StoredInvitation,
  type TeamMember,
} from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { listMembers, listOpenInvitations } from '@fairlane/db/queries/team'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { apiKeyActor, teamUseCaseDeps } from '../../team/team-deps'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { InvitationResponse, MemberResponse } from './team-responses'

/**
 * `/api/v1/members` and `/api/v1/invitations`: the tenant's team, for full-scope keys. A key acts as
 * an admin: it invites, changes and removes members and admins, never owners (403). The rules (409
 * for a member already there, 422 for the last owner) are core's (`team/`).
 */

const MAX_TEAM_BODY_BYTES = 4 * 1024
const NO_STORE = { 'cache-control': 'no-store' }

function memberJson(member: TeamMember): MemberResponse {
  return {
    userId: member.userId,
    email: member.email,
    name: member.name,
    role: member.role,
    joinedAt: member.joinedAt.toISOString(),
  }
}

function invitationJson(invitation: StoredInvitation): InvitationResponse {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
    revokedAt: invitation.revokedAt?.toISOString() ?? null,
  }
}

/** `GET /api/v1/members` → `{ items: [member] }`, owners first. */
export function getMembers(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const items = await listMembers(deps.db, { tenantId: caller.tenantId })
    return Response.json({ items: items.map(memberJson) }, { headers: NO_STORE })
  })
}

/** `PATCH /api/v1/members/:userId` `{ role }` → the member afterwards. */
export function patchMember(request: Request, userId: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const { role } = parseMemberRolePatch(await readJsonBody(request, MAX_TEAM_BODY_BYTES))
    const member = await changeMemberRole(
      { tenantId: caller.tenantId, userId, role, actor: apiKeyActor(request, caller) },
      teamUseCaseDeps(deps),
    )
    return Response.json(memberJson(member), { headers: NO_STORE })
  })
}

/** `DELETE /api/v1/members/:userId` → the member as they were. */
export function deleteMember(request: Request, userId: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const member = await removeMember(
      { tenantId: caller.tenantId, userId, actor: apiKeyActor(request, caller) },
      teamUseCaseDeps(deps),
    )
    return Response.json(memberJson(member), { headers: NO_STORE })
  })
}

/** `GET /api/v1/invitations` → `{ items: [invitation] }`: the open ones, newest first. */
export function getInvitations(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const items = await listOpenInvitations(deps.db, { tenantId: caller.tenantId })
    return Response.json({ items: items.map(invitationJson) }, { headers: NO_STORE })
  })
}

/** `POST /api/v1/invitations` `{ email, role? }` → `201` the invitation; the link is mailed, never answered. */
export function postInvitation(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const invitationRequest = parseInvitationRequest(await readJsonBody(request, MAX_TEAM_BODY_BYTES))
    const invitation = await inviteMember(
      { tenantId: caller.tenantId, request: invitationRequest, actor: apiKeyActor(request, caller) },
      teamUseCaseDeps(deps),
    )
    return Response.json(invitationJson(invitation), {
      status: 201,
      headers: { ...NO_STORE, location: `/api/v1/invitations/${invitation.id}` },
    })
  })
}

/** `DELETE /api/v1/invitations/:id` → the invitation, revoked. */
export function deleteInvitation(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    if (!isUuid(id)) throw new AppError('not_found', `No open invitation with id ${JSON.stringify(id)}`)
    const revoked = await revokeInvitation(
      { tenantId: caller.tenantId, invitationId: id, actor: apiKeyActor(request, caller) },
      teamUseCaseDeps(deps),
    )
    return Response.json(invitationJson(revoked), { headers: NO_STORE })
  })
}
