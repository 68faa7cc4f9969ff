import type { Clock } from '../accept/ports'
import type { MembershipRole } from '../domain/statuses'

/** Who acts on the team: a signed-in user (their role in the tenant) or a full-scope API key. */
export interface TeamActor {
  /** The user acting; null for an API key (it may not leave, having no membership). */
  userId: string | null
  /** The audit log's `actor`: the user's email, or `API key <prefix>`. */
  label: string
  /** The user's role; an API key acts as an admin (it may never grant or take the owner role). */
  role: MembershipRole
  /**
   * The user's address is verified (always under SIGNUP_MODE=open); true for an API key, which only
   * a verified user (or the platform admin) can have made. Inviting needs it: absent counts as not.
   */
  emailVerified?: boolean
  /** The client address the change came from (the audit log's "from which address"). */
  ipAddress?: string | null
}

/** What a change writes to `tenant_audit_log`, in the change's own transaction. */
export interface TeamAuditEntry {
  actorUserId: string | null
  actor: string
  action: string
  targetType: 'member' | 'invitation'
  targetId: string
  details?: Record<string, unknown>
  ipAddress?: string | null
}

export interface TeamMember {
  userId: string
  email: string
  name: string
  role: MembershipRole
  joinedAt: Date
}

export interface StoredInvitation {
  id: string
  tenantId: string
  tenantName: string
  email: string
  role: MembershipRole
  invitedBy: string
  createdAt: Date
  expiresAt: Date
  acceptedAt: Date | null
  revokedAt: Date | null
}

/** How many invitations a tenant may send, so the platform's sender cannot be turned on strangers. */
export interface InvitationLimits {
  /** INVITATIONS_PER_TENANT_PER_HOUR: invitations created in the last hour (replaced ones count). */
  perHour: number
  /** MAX_OPEN_INVITATIONS_PER_TENANT: open invitations (neither accepted nor revoked, expired too). */
  maxOpen: number
}

/** What `replaceOpenInvitation` did: the invitation, or which of the tenant's rules refused it. */
export type InvitationWrite =
  | { kind: 'created'; invitation: StoredInvitation }
  /** The tenant is held for the platform admin's approval (SIGNUP_MODE=approve). */
  | { kind: 'held' }
  /** `perHour` invitations were made in the last hour; one more may be made at `retryAt`. */
  | { kind: 'hourly_limit'; retryAt: Date }
  /** `maxOpen` invitations to other addresses are open. */
  | { kind: 'open_limit'; open: number }

/** Why a change to a membership did not happen (the store checks under a lock on the tenant's owners). */
export type MembershipChange = 'changed' | 'not_member' | 'last_owner'

/** What the team use cases need from PostgreSQL (`@fairlane/db/queries/team`). */
export interface TeamStore {
  findMember(query: { tenantId: string; userId: string }): Promise<TeamMember | null>
  findMemberByEmail(query: { tenantId: string; email: string }): Promise<TeamMember | null>
  /**
   * Revokes the tenant's open invitation for `email` (if any) and inserts this one, in one
   * transaction with its audit entry: at most one open invitation per tenant and address. Decided
   * under a lock on the tenant's row, so concurrent invitations cannot both pass a limit: nothing is
   * written when the tenant is held or over `limits` (the open one for `email` does not count, being
   * replaced).
   */
  replaceOpenInvitation(
    input: {
      tenantId: string
      email: string
      role: MembershipRole
      tokenHash: string
      invitedByUserId: string | null
      invitedBy: string
      expiresAt: Date
      now: Date
      limits: InvitationLimits
    },
    audit: (invitationId: string) => TeamAuditEntry,
  ): Promise<InvitationWrite>
  /** Marks an open (not accepted, not revoked) invitation revoked; null when there is none. */
  revokeInvitation(
    input: { tenantId: string; invitationId: string; now: Date },
    audit: TeamAuditEntry,
  ): Promise<StoredInvitation | null>
  findInvitationByTokenHash(tokenHash: string): Promise<StoredInvitation | null>
  /**
   * Marks the invitation accepted by `userId` and adds the membership (nothing when the user is
   * already a member), in one transaction; `false` when the invitation was no longer open and
   * unexpired at `now` (a second accept racing the first), changing nothing.
   */
  acceptInvitation(
    input: { invitationId: string; userId: string; now: Date },
    audit: TeamAuditEntry,
  ): Promise<{ accepted: boolean; alreadyMember: boolean }>
  /** Sets the role unless that would leave the tenant without an owner. */
  setMemberRole(
    input: { tenantId: string; userId: string; role: MembershipRole },
    audit: TeamAuditEntry,
  ): Promise<MembershipChange>
  /** Deletes the membership unless it is the tenant's last owner. */
  deleteMember(input: { tenantId: string; userId: string }, audit: TeamAuditEntry): Promise<MembershipChange>
}

/** Sends the invitation's link (the platform tenant's mail); `acceptUrl` carries the raw token. */
export interface InvitationMailer {
  sendInvitation(input: { invitation: StoredInvitation; acceptUrl: string }): Promise<void>
}

export interface TeamDeps {
  store: TeamStore
  clock: Clock
}
