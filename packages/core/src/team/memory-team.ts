import type { MembershipRole } from '../domain/statuses'
import type { StoredInvitation, TeamAuditEntry, TeamMember, TeamStore } from './ports'

interface MemoryInvitation extends StoredInvitation {
  tokenHash: string
}

const HOUR_MS = 60 * 60 * 1000

/** An in-memory `TeamStore` for core's unit tests: the same rules the SQL keeps, in plain arrays. */
export function memoryTeamStore(tenantName = 'Acme') {
  const heldTenants = new Set<string>()
  const members = new Map<string, TeamMember & { tenantId: string }>()
  const invitations: MemoryInvitation[] = []
  const audit: Array<TeamAuditEntry & { tenantId: string }> = []
  const key = (tenantId: string, userId: string) => `${tenantId}/${userId}`
  const owners = (tenantId: string) =>
    [...members.values()].filter((m) => m.tenantId === tenantId && m.role === 'owner').length
  const view = ({ tokenHash: _, ...invitation }: MemoryInvitation): StoredInvitation => ({ ...invitation })
  const isOpen = (i: MemoryInvitation) => !i.acceptedAt && !i.revokedAt

  const store: TeamStore = {
    async findMember({ tenantId, userId }) {
      const member = members.get(key(tenantId, userId))
      return member ? { ...member } : null
    },
    async findMemberByEmail({ tenantId, email }) {
      const member = [...members.values()].find((m) => m.tenantId === tenantId && m.email === email)
      return member ? { ...member } : null
    },
    async replaceOpenInvitation(input, auditFor) {
      if (heldTenants.has(input.tenantId)) return { kind: 'held' }
      const ours = invitations.filter((i) => i.tenantId === input.tenantId)
      const lastHour = ours
        .filter((i) => i.createdAt.getTime() > input.now.getTime() - HOUR_MS)
        .map((i) => i.createdAt.getTime())
        .sort((a, b) => a - b)
      // One more may be made once enough of the last hour's have aged out to leave room for it.
      const leaving = lastHour[lastHour.length - input.limits.perHour]
      if (leaving !== undefined) return { kind: 'hourly_limit', retryAt: new Date(leaving + HOUR_MS) }
      const open = ours.filter((i) => isOpen(i) && i.email !== input.email).length
      if (open >= input.limits.maxOpen) return { kind: 'open_limit', open }
      for (const open of invitations.filter(
        (i) => i.tenantId === input.tenantId && i.email === input.email,
      )) {
        if (isOpen(open)) open.revokedAt = input.now
      }
      const invitation: MemoryInvitation = {
        id: `inv-${invitations.length + 1}`,
        tenantId: input.tenantId,
        tenantName,
        email: input.email,
        role: input.role,
        invitedBy: input.invitedBy,
        createdAt: input.now,
        expiresAt: input.expiresAt,
        acceptedAt: null,
        revokedAt: null,
        tokenHash: input.tokenHash,
      }
      invitations.push(invitation)
      audit.push({ tenantId: input.tenantId, ...auditFor(invitation.id) })
      return { kind: 'created', invitation: view(invitation) }
    },
    async revokeInvitation({ tenantId, invitationId, now }, entry) {
      const found = invitations.find((i) => i.id === invitationId && i.tenantId === tenantId && isOpen(i))
      if (!found) return null
      found.revokedAt = now
      audit.push({ tenantId, ...entry })
      return view(found)
    },
    async findInvitationByTokenHash(tokenHash) {
      const found = invitations.find((i) => i.tokenHash === tokenHash)
      return found ? view(found) : null
    },
    async acceptInvitation({ invitationId, userId, now }, entry) {
      const found = invitations.find((i) => i.id === invitationId)
      if (!found || !isOpen(found) || found.expiresAt <= now) return { accepted: false, alreadyMember: false }
      found.acceptedAt = now
      const alreadyMember = members.has(key(found.tenantId, userId))
      if (!alreadyMember) {
        members.set(key(found.tenantId, userId), {
          tenantId: found.tenantId,
          userId,
          email: found.email,
          name: found.email,
          role: found.role,
          joinedAt: now,
        })
      }
      audit.push({ tenantId: found.tenantId, ...entry })
      return { accepted: true, alreadyMember }
    },
    async setMemberRole({ tenantId, userId, role }, entry) {
      const member = members.get(key(tenantId, userId))
      if (!member) return 'not_member'
      if (member.role === 'owner' && role !== 'owner' && owners(tenantId) <= 1) return 'last_owner'
      member.role = role
      audit.push({ tenantId, ...entry })
      return 'changed'
    },
    async deleteMember({ tenantId, userId }, entry) {
      const member = members.get(key(tenantId, userId))
      if (!member) return 'not_member'
      if (member.role === 'owner' && owners(tenantId) <= 1) return 'last_owner'
      members.delete(key(tenantId, userId))
      audit.push({ tenantId, ...entry })
      return 'changed'
    },
  }

  return {
    store,
    audit,
    invitations,
    addMember(tenantId: string, userId: string, role: MembershipRole, email = `${userId}@example.com`) {
      members.set(key(tenantId, userId), {
        tenantId,
        userId,
        email,
        name: userId,
        role,
        joinedAt: new Date(0),
      })
    },
    /** Holds the tenant for the platform admin's approval (SIGNUP_MODE=approve). */
    hold(tenantId: string) {
      heldTenants.add(tenantId)
    },
    roleOf(tenantId: string, userId: string): MembershipRole | null {
      return members.get(key(tenantId, userId))?.role ?? null
    },
  }
}
