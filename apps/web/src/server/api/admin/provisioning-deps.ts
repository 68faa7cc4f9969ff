import {
  deriveApiKey,
  generateApiKey,
  inviteMember,
  type OwnerInvitation,
  type OwnerInvitations,
  platformActorLabel,
  type StoredInvitation,
} from '@fairlane/core'
import { createTeamStore, listOpenInvitations } from '@fairlane/db/queries/team'
import { teamUseCaseDeps } from '../../team/team-deps'
import type { ApiDeps } from '../v1/deps'
import type { AdminProvisioning } from './deps'

function ownerOf(invitation: StoredInvitation): OwnerInvitation {
  return {
    email: invitation.email,
    invitationId: invitation.id,
    expiresAt: invitation.expiresAt,
    member: false,
  }
}

/**
 * The owner's invitation through the team's own use case, the platform acting as an owner (only an
 * owner may invite one) whose address is verified; the link goes out as the platform tenant's mail.
 */
export function ownerInvitations(api: ApiDeps): OwnerInvitations {
  const team = createTeamStore(api.db)
  return {
    async find({ tenantId, email }) {
      if (await team.findMemberByEmail({ tenantId, email })) {
        return { email, invitationId: null, expiresAt: null, member: true }
      }
      const open = (await listOpenInvitations(api.db, { tenantId })).find(
        (invitation) => invitation.email === email && invitation.role === 'owner',
      )
      return open ? ownerOf(open) : null
    },
    async invite({ tenantId, email, actor }) {
      const invitation = await inviteMember(
        {
          tenantId,
          request: { email, role: 'owner' },
          actor: {
            userId: null,
            label: platformActorLabel(actor.label),
            role: 'owner',
            emailVerified: true,
            ipAddress: actor.ipAddress,
          },
        },
        teamUseCaseDeps(api),
      )
      return ownerOf(invitation)
    },
  }
}

/** What `POST /api/admin/tenants` takes from the API's wiring: domains, invitations, the key secret. */
export function adminProvisioning(api: ApiDeps, apiKeySecret: string): AdminProvisioning {
  return {
    domains: { ...api.domains, maxDomains: api.tenantLimits.maxDomains },
    owners: ownerInvitations(api),
    apiKeys: {
      generate: generateApiKey,
      derive: (input) => deriveApiKey(apiKeySecret, input),
    },
  }
}
