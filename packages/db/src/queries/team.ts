import type {
  InvitationLimits,
  InvitationWrite,
  MembershipChange,
  StoredInvitation,
  TeamAuditEntry,
  TeamMember,
  TeamStore,
} from '@fairlane/core'
import { and, asc, count, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm'
import type { Database, Executor } from '../client'
import { invitations, type MembershipRole, memberships, sessions, tenants, users } from '../schema'
import { insertTenantAuditEntry } from './tenant-audit'

/**
 * The team: memberships, invitations, the tenants a user may switch between. Implements core's
 * `TeamStore`; every change writes its audit entry in its own transaction.
 */

const memberColumns = {
  userId: memberships.userId,
  email: users.email,
  name: users.name,
  role: memberships.role,
  joinedAt: memberships.createdAt,
}

const invitationColumns = {
  id: invitations.id,
  tenantId: invitations.tenantId,
  tenantName: tenants.name,
  email: invitations.email,
  role: invitations.role,
  invitedBy: invitations.invitedBy,
  createdAt: invitations.createdAt,
  expiresAt: invitations.expiresAt,
  acceptedAt: invitations.acceptedAt,
  revokedAt: invitations.revokedAt,
}

/** Members with their user's email and name: every read of the team starts here. */
function selectMembers(db: Executor) {
  return db.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.userId))
}

/** Invitations with their tenant's name: every read of an invitation starts here. */
function selectInvitations(db: Executor) {
  return db
    .select(invitationColumns)
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
}

function audit(db: Executor, tenantId: string, entry: TeamAuditEntry) {
  return insertTenantAuditEntry(db, { tenantId, entry: { ...entry, details: entry.details ?? {} } })
}

/** The tenant's members, owners first, then by when they joined. */
export async function listMembers(db: Executor, query: { tenantId: string }): Promise<TeamMember[]> {
  return selectMembers(db)
    .where(eq(memberships.tenantId, query.tenantId))
    .orderBy(
      sql`case ${memberships.role} when 'owner' then 0 when 'admin' then 1 else 2 end`,
      asc(memberships.createdAt),
      asc(users.email),
    )
}

/** Open invitations (neither accepted nor revoked; expired ones too, to be revoked or sent again), newest first. */
export async function listOpenInvitations(
  db: Executor,
  query: { tenantId: string },
): Promise<StoredInvitation[]> {
  return selectInvitations(db)
    .where(
      and(
        eq(invitations.tenantId, query.tenantId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .orderBy(desc(invitations.createdAt), desc(invitations.id))
}

/** Every tenant the user belongs to, by name: the tenant switcher's list. */
export async function listUserTenants(
  db: Executor,
  query: { userId: string },
): Promise<Array<{ tenantId: string; tenantName: string; role: MembershipRole }>> {
  return db
    .select({ tenantId: memberships.tenantId, tenantName: tenants.name, role: memberships.role })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, query.userId))
    .orderBy(asc(tenants.name), asc(tenants.id))
}

/**
 * Makes `tenantId` the session's active tenant if the user is a member of it (one statement, so a
 * membership removed meanwhile cannot be switched into); false otherwise, changing nothing.
 */
export async function switchActiveTenant(
  db: Executor,
  input: ({ sessionId: string } | { sessionToken: string }) & { userId: string; tenantId: string },
): Promise<boolean> {
  const updated = await db
    .update(sessions)
    .set({ activeTenantId: input.tenantId })
    .where(
      and(
        'sessionId' in input ? eq(sessions.id, input.sessionId) : eq(sessions.token, input.sessionToken),
        eq(sessions.userId, input.userId),
        sql`exists (select 1 from ${memberships} where ${memberships.tenantId} = ${input.tenantId}::uuid and ${memberships.userId} = ${input.userId})`,
      ),
    )
    .returning({ id: sessions.id })
  return updated.length > 0
}

/** Marks a user's address verified (a new account made from an invitation sent to that address). */
export async function markEmailVerified(db: Executor, input: { userId: string }): Promise<void> {
  await db.update(users).set({ emailVerified: true }).where(eq(users.id, input.userId))
}

/**
 * Locks the tenant's owner rows, then counts them: two owners demoting or removing each other at
 * once serialize here, so the second sees one owner left and is refused.
 */
async function ownerCountLocked(tx: Executor, tenantId: string): Promise<number> {
  const rows = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'owner')))
    .for('update')
  return rows.length
}

async function membershipChange(
  tx: Executor,
  input: { tenantId: string; userId: string; losesOwnerRole: boolean },
): Promise<MembershipChange | null> {
  const owners = await ownerCountLocked(tx, input.tenantId)
  const [current] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.tenantId, input.tenantId), eq(memberships.userId, input.userId)))
    .for('update')
  if (!current) return 'not_member'
  if (current.role === 'owner' && input.losesOwnerRole && owners <= 1) return 'last_owner'
  return null
}

const HOUR_MS = 60 * 60 * 1000

/**
 * Why the tenant may not invite now (held, its hourly or open limit), or null. Takes the tenant's row
 * lock first (`no key update`: messages' foreign keys still pass), so two invitations at once count
 * one after the other and the limits hold exactly.
 */
async function invitationRefusal(
  tx: Executor,
  input: { tenantId: string; email: string; now: Date; limits: InvitationLimits },
): Promise<InvitationWrite | null> {
  const [tenant] = await tx
    .select({ approvedAt: tenants.approvedAt })
    .from(tenants)
    .where(eq(tenants.id, input.tenantId))
    .for('no key update')
  if (!tenant?.approvedAt) return { kind: 'held' }
  // The last hour's invitations, newest first (invitations_tenant_created_idx): the perHour-th is
  // the one whose ageing out makes room for another.
  const recent = await tx
    .select({ createdAt: invitations.createdAt })
    .from(invitations)
    .where(
      and(
        eq(invitations.tenantId, input.tenantId),
        gt(invitations.createdAt, new Date(input.now.getTime() - HOUR_MS)),
      ),
    )
    .orderBy(desc(invitations.createdAt))
    .limit(input.limits.perHour)
  const leaving = recent[input.limits.perHour - 1]
  if (leaving) return { kind: 'hourly_limit', retryAt: new Date(leaving.createdAt.getTime() + HOUR_MS) }
  const [open] = await tx
    .select({ open: count() })
    .from(invitations)
    .where(
      and(
        eq(invitations.tenantId, input.tenantId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        ne(invitations.email, input.email),
      ),
    )
  const openCount = open?.open ?? 0
  return openCount >= input.limits.maxOpen ? { kind: 'open_limit', open: openCount } : null
}

export function createTeamStore(db: Database): TeamStore {
  return {
    async findMember(query) {
      const [row] = await selectMembers(db).where(
        and(eq(memberships.tenantId, query.tenantId), eq(memberships.userId, query.userId)),
      )
      return row ?? null
    },

    async findMemberByEmail(query) {
      const [row] = await selectMembers(db).where(
        and(eq(memberships.tenantId, query.tenantId), sql`lower(${users.email}) = ${query.email}`),
      )
      return row ?? null
    },

    async replaceOpenInvitation(input, auditFor) {
      return db.transaction(async (tx) => {
        const refused = await invitationRefusal(tx, input)
        if (refused) return refused
        await tx
          .update(invitations)
          .set({ revokedAt: input.now })
          .where(
            and(
              eq(invitations.tenantId, input.tenantId),
              eq(invitations.email, input.email),
              isNull(invitations.acceptedAt),
              isNull(invitations.revokedAt),
            ),
          )
        const [inserted] = await tx
          .insert(invitations)
          .values({
            tenantId: input.tenantId,
            email: input.email,
            role: input.role,
            tokenHash: input.tokenHash,
            invitedByUserId: input.invitedByUserId,
            invitedBy: input.invitedBy,
            createdAt: input.now,
            expiresAt: input.expiresAt,
          })
          .returning({ id: invitations.id })
        if (!inserted) throw new Error('insert into invitations returned no row')
        await audit(tx, input.tenantId, auditFor(inserted.id))
        const [row] = await selectInvitations(tx).where(eq(invitations.id, inserted.id))
        if (!row) throw new Error('inserted invitation not found')
        return { kind: 'created', invitation: row }
      })
    },

    async revokeInvitation(input, entry) {
      return db.transaction(async (tx) => {
        const [revoked] = await tx
          .update(invitations)
          .set({ revokedAt: input.now })
          .where(
            and(
              eq(invitations.tenantId, input.tenantId),
              eq(invitations.id, input.invitationId),
              isNull(invitations.acceptedAt),
              isNull(invitations.revokedAt),
            ),
          )
          .returning({ id: invitations.id })
        if (!revoked) return null
        await audit(tx, input.tenantId, entry)
        const [row] = await selectInvitations(tx).where(eq(invitations.id, revoked.id))
        return row ?? null
      })
    },

    async findInvitationByTokenHash(tokenHash) {
      const [row] = await selectInvitations(db).where(eq(invitations.tokenHash, tokenHash))
      return row ?? null
    },

    async acceptInvitation(input, entry) {
      return db.transaction(async (tx) => {
        // The update is the single-use check: of two accepts at once, one finds the row still open.
        const [spent] = await tx
          .update(invitations)
          .set({ acceptedAt: input.now, acceptedByUserId: input.userId })
          .where(
            and(
              eq(invitations.id, input.invitationId),
              isNull(invitations.acceptedAt),
              isNull(invitations.revokedAt),
              gt(invitations.expiresAt, input.now),
            ),
          )
          .returning({ tenantId: invitations.tenantId, role: invitations.role })
        if (!spent) return { accepted: false, alreadyMember: false }
        const added = await tx
          .insert(memberships)
          .values({ tenantId: spent.tenantId, userId: input.userId, role: spent.role })
          .onConflictDoNothing()
          .returning({ userId: memberships.userId })
        await audit(tx, spent.tenantId, entry)
        return { accepted: true, alreadyMember: added.length === 0 }
      })
    },

    async setMemberRole(input, entry) {
      return db.transaction(async (tx) => {
        const refused = await membershipChange(tx, { ...input, losesOwnerRole: input.role !== 'owner' })
        if (refused) return refused
        await tx
          .update(memberships)
          .set({ role: input.role })
          .where(and(eq(memberships.tenantId, input.tenantId), eq(memberships.userId, input.userId)))
        await audit(tx, input.tenantId, entry)
        return 'changed'
      })
    },

    async deleteMember(input, entry) {
      return db.transaction(async (tx) => {
        const refused = await membershipChange(tx, { ...input, losesOwnerRole: true })
        if (refused) return refused
        await tx
          .delete(memberships)
          .where(and(eq(memberships.tenantId, input.tenantId), eq(memberships.userId, input.userId)))
        // A session acting for the tenant falls back to the user's next membership on its next request.
        await tx
          .update(sessions)
          .set({ activeTenantId: null })
          .where(and(eq(sessions.userId, input.userId), eq(sessions.activeTenantId, input.tenantId)))
        await audit(tx, input.tenantId, entry)
        return 'changed'
      })
    },
  }
}
