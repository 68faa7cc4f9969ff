import { MEMBERSHIP_ROLES } from '@fairlane/core'
import { z } from 'zod'

/**
 * What `/api/v1/members` and `/api/v1/invitations` answer, as schemas: the API document renders them
 * and the handlers' bodies are checked against their types at compile time.
 */

const instant = z.iso.datetime().meta({ description: 'An ISO 8601 instant in UTC' })
const role = z.enum(MEMBERSHIP_ROLES).meta({
  description:
    '`owner`: everything, the plan included; `admin`: members, domains, keys, webhooks, settings; `member`: contacts, lists, templates, campaigns',
})

export const memberResponse = z
  .object({
    userId: z.string().meta({ description: 'The user’s id', example: 'Yt1v2Xq8mN0pLk3s' }),
    email: z.email(),
    name: z.string(),
    role,
    joinedAt: instant,
  })
  .meta({ id: 'Member' })
export type MemberResponse = z.input<typeof memberResponse>

export const membersResponse = z.object({ items: z.array(memberResponse) }).meta({ id: 'Members' })

export const invitationResponse = z
  .object({
    id: z.uuid().meta({ example: '0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f70' }),
    email: z.email(),
    role,
    invitedBy: z.string().meta({ description: 'Who invited: a user’s email, or `API key <id>`' }),
    createdAt: instant,
    expiresAt: instant.meta({ description: 'The link works until then (7 days)' }),
    revokedAt: instant.nullable(),
  })
  .meta({ id: 'Invitation' })
export type InvitationResponse = z.input<typeof invitationResponse>

export const invitationsResponse = z
  .object({ items: z.array(invitationResponse) })
  .meta({ id: 'Invitations' })
