import { decideAccess, MEMBERSHIP_ROLES, type MembershipRole } from '@fairlane/core'
import { switchActiveTenant } from '@fairlane/db/queries/team'
import { createTenant } from '@fairlane/db/queries/tenants'
import { memberships, tenants, users } from '@fairlane/db/schema'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, type WebHarness } from '../test-support/harness'
import { actionTable } from './action-permissions'
import { readTenantSession, type TenantSession } from './tenant-session'

/**
 * Owner, admin and member × every server action: a real user signed in through better-auth, a real
 * membership in PostgreSQL, the session read as every page and action reads it (`readTenantSession`)
 * and decided as `authorize` decides (core's `decideAccess`). The expectation is written here, from
 * the words, not derived from the permission table: a change to either shows up.
 */
const env = setupTestEnvironment('web-action-roles')
let harness: WebHarness

beforeAll(() => {
  harness = createWebHarness(env)
})

afterAll(async () => {
  await harness?.close()
})

/** What only owners and admins may do: members, domains, keys, webhooks, settings, resubscribing. */
const OWNERS_AND_ADMINS = new Set([
  'api-keys/actions.ts#createKeyAction',
  'api-keys/actions.ts#revokeKeyAction',
  'contacts/actions.ts#resubscribeContactAction',
  'suppressions/actions.ts#removeSuppressionAction',
  'domains/actions.ts#addDomainAction',
  'domains/actions.ts#verifyDomainAction',
  'domains/actions.ts#rotateDkimAction',
  'domains/actions.ts#deleteDomainAction',
  'members/actions.ts#inviteMemberAction',
  'members/actions.ts#revokeInvitationAction',
  'members/actions.ts#changeMemberRoleAction',
  'members/actions.ts#removeMemberAction',
  'settings/actions.ts#saveDefaultSenderAction',
  'settings/actions.ts#saveTrackingSettingsAction',
  'webhooks/actions.ts#createWebhookAction',
  'webhooks/actions.ts#updateWebhookAction',
  'webhooks/actions.ts#setWebhookEnabledAction',
  'webhooks/actions.ts#sendTestEventAction',
  'webhooks/actions.ts#deleteWebhookAction',
  'webhooks/actions.ts#rotateWebhookSecretAction',
  'webhooks/actions.ts#replayDeliveriesAction',
])

function expectedRoles(file: string, action: string): readonly MembershipRole[] {
  return OWNERS_AND_ADMINS.has(`${file}#${action}`) ? ['owner', 'admin'] : MEMBERSHIP_ROLES
}

/** A signed-in user with a verified address and `role` in a tenant of their own; the session as pages read it. */
async function memberWithRole(role: MembershipRole, options: { verified?: boolean } = {}) {
  const user = await harness.signIn({ platformAdmin: false })
  const tenant = await createTenant(harness.database.db, { name: `Tenant of a ${role}` })
  await harness.database.db.insert(memberships).values({ tenantId: tenant.id, userId: user.userId, role })
  if (options.verified ?? true) {
    await harness.database.db.update(users).set({ emailVerified: true }).where(eq(users.id, user.userId))
  }
  const headers = new Headers({ cookie: user.cookie })
  const read = () => readTenantSession({ auth: harness.auth, db: harness.database.db }, headers)
  return { user, tenantId: tenant.id, read }
}

for (const role of MEMBERSHIP_ROLES) {
  describe(`a tenant's ${role}`, () => {
    let session: TenantSession
    beforeAll(async () => {
      const { read, tenantId } = await memberWithRole(role)
      session = (await read()) as TenantSession
      expect(session).toMatchObject({ role, tenantId, emailVerified: true, tenantApproved: true })
    })

    for (const { file, action, permissions } of actionTable()) {
      const allowed = expectedRoles(file, action).includes(role)
      it(`${allowed ? 'may' : 'may not'} run ${file} ${action}`, () => {
        const decisions = permissions.map((permission) => decideAccess(session, permission))
        expect(decisions.every((decision) => decision.allowed)).toBe(allowed)
        // A refusal is for the role (the 403 page), never mistaken for one of standing.
        for (const decision of decisions) if (!decision.allowed) expect(decision.reason).toBe('role')
      })
    }
  })
}

describe('sessions, standing and switching', () => {
  it('refuses sending to an unverified member for standing, not role; a held tenant likewise', async () => {
    const { read, tenantId } = await memberWithRole('member', { verified: false })
    const unverified = (await read()) as TenantSession
    expect(decideAccess(unverified, 'campaigns.send')).toMatchObject({ allowed: false, reason: 'unverified' })
    expect(decideAccess(unverified, 'campaigns.manage')).toEqual({ allowed: true })
    await harness.database.db
      .update(users)
      .set({ emailVerified: true })
      .where(eq(users.id, unverified.userId))
    await harness.database.db.update(tenants).set({ approvedAt: null }).where(eq(tenants.id, tenantId))
    expect(decideAccess((await read()) as TenantSession, 'campaigns.send')).toMatchObject({ reason: 'held' })
  })

  it('reads the role from PostgreSQL on every request: a demotion or removal applies at once', async () => {
    const { read, user, tenantId } = await memberWithRole('admin')
    expect(decideAccess((await read()) as TenantSession, 'domains.manage').allowed).toBe(true)
    const mine = and(eq(memberships.tenantId, tenantId), eq(memberships.userId, user.userId))
    await harness.database.db.update(memberships).set({ role: 'member' }).where(mine)
    expect(decideAccess((await read()) as TenantSession, 'domains.manage')).toMatchObject({ reason: 'role' })
    await harness.database.db.delete(memberships).where(mine)
    expect(await read()).toBeNull()
  })

  it('switches tenants only into one the user belongs to', async () => {
    const { read, user, tenantId } = await memberWithRole('owner')
    const other = await createTenant(harness.database.db, { name: 'Second tenant' })
    const stranger = await createTenant(harness.database.db, { name: 'Not mine' })
    const sessionId = ((await read()) as TenantSession).sessionId
    expect(
      await switchActiveTenant(harness.database.db, {
        sessionId,
        userId: user.userId,
        tenantId: stranger.id,
      }),
    ).toBe(false)
    expect((await read())?.tenantId).toBe(tenantId)
    await harness.database.db
      .insert(memberships)
      .values({ tenantId: other.id, userId: user.userId, role: 'member' })
    expect(
      await switchActiveTenant(harness.database.db, { sessionId, userId: user.userId, tenantId: other.id }),
    ).toBe(true)
    expect(await read()).toMatchObject({ tenantId: other.id, tenantName: 'Second tenant', role: 'member' })
  })
})
