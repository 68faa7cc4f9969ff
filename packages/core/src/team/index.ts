export {
  type AcceptOutcome,
  acceptInvitation,
  findInvitation,
  type InvitationLookup,
  type InvitationRefusal,
} from './accept-invitation'
export { changeMemberRole, removeMember } from './change-member'
export {
  generateInvitationToken,
  hashInvitationToken,
  INVITATION_TTL_MS,
  invitationUrl,
} from './invitation-token'
export { type InviteMemberDeps, inviteMember, revokeInvitation } from './invite-member'
export type {
  InvitationLimits,
  InvitationMailer,
  InvitationWrite,
  MembershipChange,
  StoredInvitation,
  TeamActor,
  TeamAuditEntry,
  TeamDeps,
  TeamMember,
  TeamStore,
} from './ports'
export {
  type InvitationRequest,
  invitationRequestSchema,
  memberRolePatchSchema,
  parseInvitationRequest,
  parseMemberRolePatch,
} from './team-input'
