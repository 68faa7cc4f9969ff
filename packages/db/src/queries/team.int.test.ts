import { randomUUID } from 'node:crypto'
import {
  acceptInvitation,
  changeMemberRole,
  inviteMember,
  removeMember,
  revokeInvitation,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { memberships, tenantAuditLog, tenants, users } from '../schema'
import { createTenantWithOwner } from './accounts'
import { createTeamStore, listMembers, listOpenInvitations, listUserTenants } from './team'

/** The team use cases on the real store: single-use links, the last owner under concurrency, tenants apart. */
const env = setupTestEnvironment('team-store')
let database: DatabaseHandle

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 20, applicationName: 'team-store-test' })
})

afterAll(async () => {
  await database?.close()
})

async function user(label: string): Promise<{ id: string; email: string }> {
  const id = randomUUID()
  const email = `${label}-${id.slice(0, 8)}@example.com`
  await database.db.insert(users).values({ id, email, name: label })
  return { id, email }
}

function deps(limits = { perHour: 20, maxOpen: 50 }) {
  const sent: string[] = []
  let counter = 0
  return {
    sent,
    deps: {
      store: createTeamStore(database.db),
      limits,
      recipientLimiter: { consume: async () => ({ allowed: true as const }) },
      clock: { now: () => new Date() },
      appUrl: 'http://app.test',
      generateToken: () => `tok-${randomUUID()}-${++counter}`,
      mailer: {
        async sendInvitation(input: { acceptUrl: string }) {
          sent.push(input.acceptUrl)
        },
      },
    },
  }
}

const tokenOf = (url: string | undefined) => url?.split('/invite/')[1] ?? ''
const codeOf = (error: unknown) => (isAppError(error) ? error.code : error)

describe('the team store', () => {
  it('invites, accepts once, and audits each step in the tenant’s log', async () => {
    const owner = await user('owner')
    const invitee = await user('invitee')
    const { tenantId } = await createTenantWithOwner(database.db, { userId: owner.id, tenantName: 'Team A' })
    const { deps: d, sent } = deps()
    const actor = { userId: owner.id, label: owner.email, role: 'owner' as const, emailVerified: true }
    await inviteMember({ tenantId, request: { email: invitee.email, role: 'member' }, actor }, d)
    // Inviting again replaces the open invitation: one open, the first link dead.
    await inviteMember({ tenantId, request: { email: invitee.email, role: 'admin' }, actor }, d)
    expect(await listOpenInvitations(database.db, { tenantId })).toHaveLength(1)
    const stale = await acceptInvitation(
      { token: tokenOf(sent[0]), userId: invitee.id, userEmail: invitee.email },
      d,
    )
    expect(stale).toMatchObject({ kind: 'refused', reason: 'revoked' })

    const token = tokenOf(sent[1])
    const [first, second] = await Promise.all([
      acceptInvitation({ token, userId: invitee.id, userEmail: invitee.email }, d),
      acceptInvitation({ token, userId: invitee.id, userEmail: invitee.email }, d),
    ])
    expect([first?.kind, second?.kind].sort()).toEqual(['accepted', 'refused'])
    expect((await listMembers(database.db, { tenantId })).map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [invitee.email, 'admin'],
    ])
    expect(await listOpenInvitations(database.db, { tenantId })).toEqual([])
    const conflict = await inviteMember(
      { tenantId, request: { email: invitee.email, role: 'member' }, actor },
      d,
    ).catch((error: unknown) => error)
    expect(codeOf(conflict)).toBe('conflict')
    const actions = await database.db
      .select({ action: tenantAuditLog.action })
      .from(tenantAuditLog)
      .where(eq(tenantAuditLog.tenantId, tenantId))
      .orderBy(tenantAuditLog.id)
    expect(actions.map((a) => a.action)).toEqual([
      'invitation.create',
      'invitation.create',
      'invitation.accept',
    ])
  })

  it('keeps one owner when two owners demote each other at once (422 for one of them)', async () => {
    const a = await user('a')
    const b = await user('b')
    const { tenantId } = await createTenantWithOwner(database.db, { userId: a.id, tenantName: 'Two owners' })
    await database.db.insert(memberships).values({ tenantId, userId: b.id, role: 'owner' })
    const { deps: d } = deps()
    const results = await Promise.allSettled([
      changeMemberRole(
        { tenantId, userId: b.id, role: 'member', actor: { userId: a.id, label: a.email, role: 'owner' } },
        d,
      ),
      changeMemberRole(
        { tenantId, userId: a.id, role: 'member', actor: { userId: b.id, label: b.email, role: 'owner' } },
        d,
      ),
    ])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = results.find((r) => r.status === 'rejected')
    expect(codeOf(rejected?.status === 'rejected' ? rejected.reason : null)).toBe('unprocessable')
    const owners = await database.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'owner')))
    expect(owners).toHaveLength(1)
    const last = owners[0]?.userId ?? ''
    const leave = await removeMember(
      { tenantId, userId: last, actor: { userId: last, label: 'x', role: 'owner' } },
      d,
    ).catch((error: unknown) => error)
    expect(codeOf(leave)).toBe('unprocessable')
  })

  it('never reaches another tenant’s invitations or members', async () => {
    const a = await user('owner-a')
    const b = await user('owner-b')
    const tenantA = await createTenantWithOwner(database.db, { userId: a.id, tenantName: 'A' })
    const tenantB = await createTenantWithOwner(database.db, { userId: b.id, tenantName: 'B' })
    const { deps: d } = deps()
    const actorA = { userId: a.id, label: a.email, role: 'owner' as const, emailVerified: true }
    const invitation = await inviteMember(
      { tenantId: tenantA.tenantId, request: { email: 'x@example.com', role: 'member' }, actor: actorA },
      d,
    )
    const actorB = { userId: b.id, label: b.email, role: 'owner' as const }
    expect(
      codeOf(
        await revokeInvitation(
          { tenantId: tenantB.tenantId, invitationId: invitation.id, actor: actorB },
          d,
        ).catch((e) => e),
      ),
    ).toBe('not_found')
    expect(
      codeOf(
        await removeMember({ tenantId: tenantB.tenantId, userId: a.id, actor: actorB }, d).catch((e) => e),
      ),
    ).toBe('not_found')
    expect(await listOpenInvitations(database.db, { tenantId: tenantB.tenantId })).toEqual([])
    expect((await listUserTenants(database.db, { userId: a.id })).map((t) => t.tenantName)).toEqual(['A'])
  })

  it('holds the open cap under concurrent invitations (the tenant row lock), and refuses a held tenant', async () => {
    const owner = await user('busy-owner')
    const { tenantId } = await createTenantWithOwner(database.db, { userId: owner.id, tenantName: 'Busy' })
    const { deps: d, sent } = deps({ perHour: 100, maxOpen: 3 })
    const actor = { userId: owner.id, label: owner.email, role: 'owner' as const, emailVerified: true }
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, n) =>
        inviteMember({ tenantId, request: { email: `n${n}@example.com`, role: 'member' }, actor }, d),
      ),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3)
    expect(
      results
        .map((r) => (r.status === 'rejected' ? codeOf(r.reason) : 'created'))
        .filter((c) => c !== 'created'),
    ).toEqual(Array(7).fill('unprocessable'))
    expect(await listOpenInvitations(database.db, { tenantId })).toHaveLength(3)
    expect(sent).toHaveLength(3)

    await database.db.update(tenants).set({ approvedAt: null }).where(eq(tenants.id, tenantId))
    const held = await inviteMember(
      { tenantId, request: { email: 'n0@example.com', role: 'member' }, actor },
      d,
    ).catch((error: unknown) => error)
    expect(codeOf(held)).toBe('forbidden')
    expect(sent).toHaveLength(3)
  })
})
