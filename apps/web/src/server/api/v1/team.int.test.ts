import { findInvitation } from '@fairlane/core'
import { memberships, messages, tenants, users } from '@fairlane/db/schema'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteDeps } from '../../routes'
import { signUpByInvitation } from '../../team/join-by-invitation'
import { teamUseCaseDeps } from '../../team/team-deps'
import { callRoute, documentedAnswer, routeDeps } from '../../test-support/api-calls'
import { createWebHarness, seedTenant, type WebHarness } from '../../test-support/harness'
import { type CheckedDocument, checkOpenApiDocument } from '../../test-support/openapi'
import { buildOpenApiDocument } from './openapi/document'
import type { InvitationResponse, MemberResponse } from './team-responses'

/** `/api/v1/members` and `/api/v1/invitations` through the route table, on real PostgreSQL and Redis. */
const env = setupTestEnvironment('web-team')
let harness: WebHarness
let deps: RouteDeps
let checked: CheckedDocument
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>
let owner: { userId: string; email: string }

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = routeDeps(harness, harness.apiDeps())
  checked = await checkOpenApiDocument(buildOpenApiDocument())
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
  owner = await harness.signIn({ platformAdmin: false })
  await harness.database.db
    .insert(memberships)
    .values({ tenantId: acme.tenantId, userId: owner.userId, role: 'owner' })
})

afterAll(async () => {
  await harness?.close()
})

type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } }
const INVITATIONS = { path: '/api/v1/invitations', method: 'post' }
const MEMBER = (method: string) => ({ path: '/api/v1/members/{userId}', method })

const invite = (body: unknown, key = acme.apiKey) =>
  callRoute(deps, 'POST', '/api/v1/invitations', { token: key, body })

/** The link in the invitation mail, as the platform tenant accepted it. */
async function mailedToken(to: string): Promise<string> {
  const [mail] = await harness.database.db
    .select({ text: messages.text, lane: messages.lane })
    .from(messages)
    .innerJoin(tenants, eq(tenants.id, messages.tenantId))
    .where(and(eq(tenants.isPlatform, true), eq(messages.toAddress, to)))
    .orderBy(messages.createdAt)
    .limit(1)
  expect(mail?.lane).toBe('default')
  const token = /\/invite\/([\w-]+)/.exec(mail?.text ?? '')?.[1]
  if (!token) throw new Error(`no invitation link in ${JSON.stringify(mail?.text)}`)
  return token
}

describe('POST /api/v1/invitations', () => {
  it('answers 201, mails the link as the platform tenant’s message, and the link makes a verified member', async () => {
    const response = await invite({ email: 'New.Hire@Example.com', role: 'member' })
    expect(response.status).toBe(201)
    const created = await documentedAnswer<InvitationResponse>(checked, INVITATIONS, response)
    expect(created).toMatchObject({ email: 'new.hire@example.com', role: 'member', revokedAt: null })
    expect(created.invitedBy).toMatch(/^API key /)

    const token = await mailedToken('new.hire@example.com')
    const team = teamUseCaseDeps(deps.api)
    expect(await findInvitation(token, team)).toMatchObject({ kind: 'open' })
    const joined = await signUpByInvitation(
      { token, name: 'New Hire', email: 'new.hire@example.com', password: 'correct horse battery staple' },
      { auth: harness.auth, db: harness.database.db, team },
    )
    expect(joined).toMatchObject({ kind: 'accepted', alreadyMember: false })
    const [user] = await harness.database.db
      .select()
      .from(users)
      .where(eq(users.email, 'new.hire@example.com'))
    expect(user?.emailVerified).toBe(true)
    // Joined the inviting tenant only: no tenant of its own.
    const joinedTenants = await harness.database.db
      .select({ tenantId: memberships.tenantId, role: memberships.role })
      .from(memberships)
      .where(eq(memberships.userId, user?.id ?? ''))
    expect(joinedTenants).toEqual([{ tenantId: acme.tenantId, role: 'member' }])

    // The link is spent: a second account from it is refused and not made.
    const again = await signUpByInvitation(
      { token, name: 'Other', email: 'other@example.com', password: 'correct horse battery staple' },
      { auth: harness.auth, db: harness.database.db, team },
    )
    expect(again).toMatchObject({ kind: 'refused', reason: 'used' })
    expect(
      await harness.database.db.select().from(users).where(eq(users.email, 'other@example.com')),
    ).toEqual([])
  })

  it('refuses a member’s address (409), the owner role for a key (403), and bad input naming the field', async () => {
    const conflict = await invite({ email: owner.email })
    expect(conflict.status).toBe(409)
    expect((await documentedAnswer<ErrorBody>(checked, INVITATIONS, conflict)).error.details?.[0]?.path).toBe(
      'email',
    )
    const ownerRole = await invite({ email: 'boss@example.com', role: 'owner' })
    expect(ownerRole.status).toBe(403)
    await documentedAnswer(checked, INVITATIONS, ownerRole)
    const bad = await invite({ email: 'not-an-address', role: 'king' })
    expect(bad.status).toBe(400)
    const { error } = await documentedAnswer<ErrorBody>(checked, INVITATIONS, bad)
    expect(error.details?.map((d) => d.path).sort()).toEqual(['email', 'role'])
  })

  it('lists open invitations per tenant and revokes once (then 404)', async () => {
    const created = await documentedAnswer<InvitationResponse>(
      checked,
      INVITATIONS,
      await invite({ email: 'later@example.com' }),
    )
    const listed = await callRoute(deps, 'GET', '/api/v1/invitations', { token: acme.apiKey })
    const { items } = await documentedAnswer<{ items: InvitationResponse[] }>(
      checked,
      { path: '/api/v1/invitations', method: 'get' },
      listed,
    )
    expect(items.map((i) => i.email)).toContain('later@example.com')
    const other = await callRoute(deps, 'GET', '/api/v1/invitations', { token: globex.apiKey })
    expect(
      (
        await documentedAnswer<{ items: unknown[] }>(
          checked,
          { path: '/api/v1/invitations', method: 'get' },
          other,
        )
      ).items,
    ).toEqual([])
    const ONE = { path: '/api/v1/invitations/{id}', method: 'delete' }
    const foreign = await callRoute(deps, 'DELETE', `/api/v1/invitations/${created.id}`, {
      token: globex.apiKey,
    })
    expect(foreign.status).toBe(404)
    const revoked = await callRoute(deps, 'DELETE', `/api/v1/invitations/${created.id}`, {
      token: acme.apiKey,
    })
    expect(revoked.status).toBe(200)
    expect((await documentedAnswer<InvitationResponse>(checked, ONE, revoked)).revokedAt).not.toBeNull()
    const twice = await callRoute(deps, 'DELETE', `/api/v1/invitations/${created.id}`, { token: acme.apiKey })
    expect(twice.status).toBe(404)
    await documentedAnswer(checked, ONE, twice)
  })
})

describe('/api/v1/members', () => {
  it('lists members, changes a role, keeps owners out of a key’s reach, and removes', async () => {
    const colleague = await harness.signIn({ platformAdmin: false })
    await harness.database.db
      .insert(memberships)
      .values({ tenantId: acme.tenantId, userId: colleague.userId, role: 'member' })
    const listed = await callRoute(deps, 'GET', '/api/v1/members', { token: acme.apiKey })
    const { items } = await documentedAnswer<{ items: MemberResponse[] }>(
      checked,
      { path: '/api/v1/members', method: 'get' },
      listed,
    )
    expect(items[0]).toMatchObject({ userId: owner.userId, role: 'owner' })
    expect(items.map((m) => m.email)).toContain(colleague.email)

    const promoted = await callRoute(deps, 'PATCH', `/api/v1/members/${colleague.userId}`, {
      token: acme.apiKey,
      body: { role: 'admin' },
    })
    expect(promoted.status).toBe(200)
    expect(await documentedAnswer<MemberResponse>(checked, MEMBER('patch'), promoted)).toMatchObject({
      role: 'admin',
    })

    const demoteOwner = await callRoute(deps, 'PATCH', `/api/v1/members/${owner.userId}`, {
      token: acme.apiKey,
      body: { role: 'member' },
    })
    expect(demoteOwner.status).toBe(403)
    await documentedAnswer(checked, MEMBER('patch'), demoteOwner)
    const badRole = await callRoute(deps, 'PATCH', `/api/v1/members/${colleague.userId}`, {
      token: acme.apiKey,
      body: { role: 'king' },
    })
    expect(badRole.status).toBe(400)
    expect(
      (await documentedAnswer<ErrorBody>(checked, MEMBER('patch'), badRole)).error.details?.[0]?.path,
    ).toBe('role')

    const foreign = await callRoute(deps, 'DELETE', `/api/v1/members/${colleague.userId}`, {
      token: globex.apiKey,
    })
    expect(foreign.status).toBe(404)
    const removed = await callRoute(deps, 'DELETE', `/api/v1/members/${colleague.userId}`, {
      token: acme.apiKey,
    })
    expect(removed.status).toBe(200)
    await documentedAnswer(checked, MEMBER('delete'), removed)
    const gone = await callRoute(deps, 'DELETE', `/api/v1/members/${colleague.userId}`, {
      token: acme.apiKey,
    })
    expect(gone.status).toBe(404)
  })
})
