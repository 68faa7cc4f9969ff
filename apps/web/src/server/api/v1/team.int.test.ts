import { findInvitation, inviteMember } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { invitations, memberships, messages, tenants, users } from '@fairlane/db/schema'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readTenantSession } from '../../auth/tenant-session'
import type { RouteDeps } from '../../routes'
import { signUpByInvitation } from '../../team/join-by-invitation'
import { teamUseCaseDeps, userActor } from '../../team/team-deps'
import { callRoute, documentedAnswer, routeDeps } from '../../test-support/api-calls'
import { createWebHarness, seedTenant, type WebHarness } from '../../test-support/harness'
import { type CheckedDocument, checkOpenApiDocument } from '../../test-support/openapi'
import { buildOpenApiDocument } from '../catalog'
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

/** What the platform tenant was asked to mail to `to` (invitations are its messages). */
async function platformMailTo(to: string): Promise<number> {
  const rows = await harness.database.db
    .select({ id: messages.id })
    .from(messages)
    .innerJoin(tenants, eq(tenants.id, messages.tenantId))
    .where(and(eq(tenants.isPlatform, true), eq(messages.toAddress, to)))
  return rows.length
}

describe('who may invite, and how many (issue 27, M3)', () => {
  it('refuses an unverified owner (403): no invitation, no message', async () => {
    const unverified = await harness.signIn({ platformAdmin: false })
    const { tenantId } = await seedTenant(harness, 'Unverified Co')
    await harness.database.db
      .insert(memberships)
      .values({ tenantId, userId: unverified.userId, role: 'owner' })
    const session = await readTenantSession(
      { auth: harness.auth, db: harness.database.db },
      new Headers({ cookie: unverified.cookie }),
    )
    expect(session).toMatchObject({ tenantId, role: 'owner', emailVerified: false })
    if (!session) return
    const refused = await inviteMember(
      { tenantId, request: { email: 'stranger@victim.example', role: 'member' }, actor: userActor(session) },
      teamUseCaseDeps(deps.api),
    ).catch((error: unknown) => error)
    expect(isAppError(refused) && refused.code).toBe('forbidden')
    expect(isAppError(refused) && refused.message).toMatch(/Verify your email address/)
    expect(
      await harness.database.db.select().from(invitations).where(eq(invitations.tenantId, tenantId)),
    ).toEqual([])
    expect(await platformMailTo('stranger@victim.example')).toBe(0)

    // Verified, the same owner may invite.
    await harness.database.db
      .update(users)
      .set({ emailVerified: true })
      .where(eq(users.id, unverified.userId))
    const verified = await readTenantSession(
      { auth: harness.auth, db: harness.database.db },
      new Headers({ cookie: unverified.cookie }),
    )
    if (!verified) throw new Error('no session')
    await inviteMember(
      {
        tenantId,
        request: { email: 'colleague@unverified.example', role: 'member' },
        actor: userActor(verified),
      },
      teamUseCaseDeps(deps.api),
    )
    expect(await platformMailTo('colleague@unverified.example')).toBe(1)
  })

  it('refuses a key of a tenant held for approval (403): no invitation, no message', async () => {
    const held = await seedTenant(harness, 'Held Co')
    await harness.database.db.update(tenants).set({ approvedAt: null }).where(eq(tenants.id, held.tenantId))
    const response = await invite({ email: 'stranger@held.example' }, held.apiKey)
    expect(response.status).toBe(403)
    const { error } = await documentedAnswer<ErrorBody>(checked, INVITATIONS, response)
    expect(error.message).toMatch(/waiting for approval/)
    expect(await platformMailTo('stranger@held.example')).toBe(0)
  })

  it('refuses beyond the hourly rate (429, invitations) and the open cap (422), mailing nothing more', async () => {
    const tight = routeDeps(
      harness,
      harness.apiDeps({
        tenantLimits: { ...deps.api.tenantLimits, invitations: { perHour: 3, maxOpen: 2 } },
      }),
    )
    const capped = await seedTenant(harness, 'Capped Co')
    const send = (email: string) =>
      callRoute(tight, 'POST', '/api/v1/invitations', { token: capped.apiKey, body: { email } })
    expect((await send('one@capped.example')).status).toBe(201)
    expect((await send('two@capped.example')).status).toBe(201)
    const open = await send('three@capped.example')
    expect(open.status).toBe(422)
    expect((await documentedAnswer<ErrorBody>(checked, INVITATIONS, open)).error.message).toMatch(
      /2 open invitations, the most allowed \(2\)/,
    )
    expect(await platformMailTo('three@capped.example')).toBe(0)

    // Sending one again replaces it (still two open) and is the hour's third.
    expect((await send('two@capped.example')).status).toBe(201)
    const hourly = await send('one@capped.example')
    expect(hourly.status).toBe(429)
    expect(Number(hourly.headers.get('retry-after'))).toBeGreaterThan(3500)
    const body = await documentedAnswer<{ error: { details: { limit: string } } }>(
      checked,
      INVITATIONS,
      hourly,
    )
    expect(body.error.details.limit).toBe('invitations')
    expect(await platformMailTo('one@capped.example')).toBe(1)
  })

  it('refuses a sixth invitation to one address within a minute (429, recipient)', async () => {
    const tenant = await seedTenant(harness, 'Repeat Co')
    const statuses: number[] = []
    for (let n = 0; n < 6; n += 1) {
      statuses.push((await invite({ email: 'again@repeat.example' }, tenant.apiKey)).status)
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429])
    expect(await platformMailTo('again@repeat.example')).toBe(5)
  })
})
