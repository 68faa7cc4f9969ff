import type { InviteMemberDeps, MembershipRole, TeamActor } from '@fairlane/core'
import { createTeamStore } from '@fairlane/db/queries/team'
import { createAccountMailer, PLATFORM_TENANT_NAME } from '../accounts/account-mail'
import type { ApiDeps } from '../api/v1/deps'
import { type ApiCaller, apiAuditActor } from '../auth/api-key'
import { invitationMail } from './invitation-mail'

/**
 * What the team use cases take, for the API's handlers and the Members page's actions alike: the
 * store on the API's database, and the invitation mailed as the platform tenant's message.
 */
export function teamUseCaseDeps(api: ApiDeps): InviteMemberDeps {
  const accountMail = createAccountMailer(api)
  return {
    store: createTeamStore(api.db),
    clock: api.clock,
    appUrl: api.appUrl,
    limits: api.tenantLimits.invitations,
    recipientLimiter: api.limiters.recipient,
    mailer: {
      async sendInvitation({ invitation, acceptUrl }) {
        await accountMail.send(invitationMail({ invitation, acceptUrl, appName: PLATFORM_TENANT_NAME }), {
          idempotencyKey: `invitation:${invitation.id}`,
        })
      },
    },
  }
}

/** A signed-in user acting on their tenant's team (`emailVerified` as the session reads it, SIGNUP_MODE included). */
export function userActor(
  session: { userId: string; email: string; role: MembershipRole; emailVerified: boolean },
  ipAddress: string | null = null,
): TeamActor {
  return {
    userId: session.userId,
    label: session.email,
    role: session.role,
    emailVerified: session.emailVerified,
    ipAddress,
  }
}

/**
 * A full-scope API key acting on the team: as an admin, so a key (which an admin may have made)
 * never grants or takes the owner role. Verified: only a user in good standing, or the platform
 * admin, can make a key; whether the tenant is held is read afresh when it invites.
 */
export function apiKeyActor(request: Request, caller: Pick<ApiCaller, 'keyPrefix'>): TeamActor {
  return { ...apiAuditActor(request, caller), role: 'admin', emailVerified: true }
}
