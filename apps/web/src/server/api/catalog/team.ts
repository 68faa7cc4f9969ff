import { invitationRequestSchema, memberRolePatchSchema } from '@fairlane/core'
import { z } from 'zod'
import { body, idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import {
  deleteInvitation,
  deleteMember,
  getInvitations,
  getMembers,
  patchMember,
  postInvitation,
} from '../v1/team'
import {
  invitationResponse,
  invitationsResponse,
  memberResponse,
  membersResponse,
} from '../v1/team-responses'
import { declareRoute } from './define'

const userIdParam = {
  path: z.object({
    userId: z.string().meta({ description: 'The member’s user id (from `GET /api/v1/members`)' }),
  }),
}

const AS_ADMIN =
  'A key acts as an admin: it manages members and admins, never the owner role (403 for inviting, changing or removing an owner).'

/** The tenant's team (extensions of the contract): members and their roles, invitations by email. */
export const teamRoutes = {
  listMembers: declareRoute({
    method: 'GET',
    path: '/api/v1/members',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getMembers(request, deps.api),
    openapi: {
      operationId: 'listMembers',
      tags: ['Team'],
      summary: 'List the tenant’s members',
      responses: responses({ '200': json(membersResponse, 'Every member, owners first') }, [401, 429]),
    },
  }),
  changeMemberRole: declareRoute({
    method: 'PATCH',
    path: '/api/v1/members/:userId',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { userId }, deps) => patchMember(request, userId, deps.api),
    openapi: {
      operationId: 'changeMemberRole',
      tags: ['Team'],
      summary: 'Change a member’s role',
      description: `${AS_ADMIN} The last owner cannot be demoted (422).`,
      requestParams: userIdParam,
      requestBody: body(memberRolePatchSchema.meta({ id: 'MemberRolePatchRequest' }), {
        admin: { summary: 'Make an admin', value: { role: 'admin' } },
      }),
      responses: responses(
        { '200': json(memberResponse, 'The member afterwards') },
        [400, 401, 403, 404, 413, 415, 422, 429],
      ),
    },
  }),
  removeMember: declareRoute({
    method: 'DELETE',
    path: '/api/v1/members/:userId',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { userId }, deps) => deleteMember(request, userId, deps.api),
    openapi: {
      operationId: 'removeMember',
      tags: ['Team'],
      summary: 'Remove a member',
      description: `${AS_ADMIN} The last owner cannot be removed (422).`,
      requestParams: userIdParam,
      responses: responses(
        { '200': json(memberResponse, 'The member as they were') },
        [401, 403, 404, 422, 429],
      ),
    },
  }),
  listInvitations: declareRoute({
    method: 'GET',
    path: '/api/v1/invitations',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getInvitations(request, deps.api),
    openapi: {
      operationId: 'listInvitations',
      tags: ['Team'],
      summary: 'List open invitations',
      description:
        'Neither accepted nor revoked (expired ones too, until revoked or sent again), newest first.',
      responses: responses({ '200': json(invitationsResponse, 'The open invitations') }, [401, 429]),
    },
  }),
  inviteMember: declareRoute({
    method: 'POST',
    path: '/api/v1/invitations',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postInvitation(request, deps.api),
    openapi: {
      operationId: 'inviteMember',
      tags: ['Team'],
      summary: 'Invite someone by email',
      description: [
        'Mails a single-use link, good for 7 days, to join with `role` (default `member`). Inviting the same',
        'address again replaces the open invitation (the old link stops working). An address already a member',
        `is a 409 naming \`email\`. ${AS_ADMIN} The link is never in the answer. A tenant held for approval is`,
        'refused (403). Limits: `INVITATIONS_PER_TENANT_PER_HOUR` per hour (429, `details.limit: "invitations"`),',
        '`MAX_OPEN_INVITATIONS_PER_TENANT` open at once (422; revoke one first), and 5 a minute to one address',
        '(429, `details.limit: "recipient"`).',
      ].join(' '),
      requestBody: body(invitationRequestSchema.meta({ id: 'InvitationRequest' }), {
        member: {
          summary: 'A colleague as a member',
          value: { email: 'colleague@example.com', role: 'member' },
        },
      }),
      responses: responses(
        { '201': json(invitationResponse, 'Invited; the link is on its way', locationHeader('invitation')) },
        [400, 401, 403, 409, 413, 415, 422, 429],
      ),
    },
  }),
  revokeInvitation: declareRoute({
    method: 'DELETE',
    path: '/api/v1/invitations/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => deleteInvitation(request, id, deps.api),
    openapi: {
      operationId: 'revokeInvitation',
      tags: ['Team'],
      summary: 'Revoke an open invitation',
      description: 'Its link stops working. An accepted or already revoked invitation answers 404.',
      requestParams: idParam('invitation'),
      responses: responses({ '200': json(invitationResponse, 'The invitation, revoked') }, [401, 404, 429]),
    },
  }),
}
