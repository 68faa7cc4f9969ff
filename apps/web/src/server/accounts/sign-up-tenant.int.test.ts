import { createDatabase, type DatabaseHandle, memberships, tenants } from '@fairlane/db'
import { createTenantWithOwner, findActingMembership } from '@fairlane/db/queries/accounts'
import { createProducerConnection, type RedisClient } from '@fairlane/queue'
import { setupTestEnvironment, testRedisTarget } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthThrottle, DEFAULT_AUTH_THROTTLE } from '../auth/auth-throttle'
import { type Auth, createAuth } from '../auth/better-auth'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import { collectingLogger } from '../test-support/logger'
import { signUpTenant } from './sign-up-tenant'

const env = setupTestEnvironment('sign-up')

let database: DatabaseHandle
let auth: Auth
let redis: RedisClient
const logger = collectingLogger()

function authWith(signUpsPerHour: number, keyPrefix: string): Auth {
  return createAuth({
    db: database.db,
    secret: 'sign-up-test-secret-0123456789abcdef',
    baseURL: 'http://127.0.0.1:3000',
    throttle: createAuthThrottle({
      redis,
      keyPrefix,
      logger,
      policy: { ...DEFAULT_AUTH_THROTTLE, signUpsPerClient: { points: signUpsPerHour, windowSec: 3600 } },
    }),
  })
}

beforeAll(() => {
  database = createDatabase(env.databaseUrl, { max: 5, applicationName: 'sign-up-test' })
  redis = createProducerConnection(testRedisTarget(env), 'sign-up-test', logger)
  auth = authWith(100, `${env.queuePrefix}:rl`)
})

afterAll(async () => {
  redis?.disconnect()
  await database?.close()
})

// Plain SQL for the checks: apps/web resolves its own drizzle-orm copy, whose operators do not type
// against @fairlane/db's tables.
const countOf = async (table: 'users' | 'tenants', where: { email?: string; name?: string } = {}) => {
  const sql = database.sql
  const filter = where.email
    ? sql`where email = ${where.email}`
    : where.name
      ? sql`where name = ${where.name}`
      : sql``
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)} ${filter}`
  return row?.n ?? 0
}

let counter = 0
const form = (overrides: Partial<Record<'company' | 'name' | 'email' | 'password', string>> = {}) => {
  counter += 1
  return {
    company: `Company ${counter}`,
    name: 'Ada Owner',
    email: `owner-${counter}-${Date.now()}@example.test`,
    password: 'correct horse battery',
    ...overrides,
  }
}

describe('signUpTenant', () => {
  it('creates the user through better-auth, a tenant on the default plan and an owner membership', async () => {
    const input = form({ company: '  Bakery Ltd  ', email: 'Mixed.Case@Example.test' })
    const outcome = await signUpTenant(input, { auth, db: database.db })
    expect(outcome.kind).toBe('created')
    if (outcome.kind !== 'created') return

    const [user] =
      await database.sql`select email, name, is_platform_admin from users where id = ${outcome.userId}`
    expect(user).toEqual({ email: 'mixed.case@example.test', name: 'Ada Owner', is_platform_admin: false })
    const [tenant] =
      await database.sql`select name, rate_per_sec, burst, weight from tenants where id = ${outcome.tenantId}`
    expect(tenant).toEqual({ name: 'Bakery Ltd', rate_per_sec: 10, burst: 20, weight: 1 })
    expect(await findActingMembership(database.db, { userId: outcome.userId })).toEqual({
      tenantId: outcome.tenantId,
      tenantName: 'Bakery Ltd',
      role: 'owner',
      tenantApproved: true,
    })

    // The stored credential is better-auth's hash, and the password signs in.
    const signedIn = await auth.api.signInEmail({ body: { email: input.email, password: input.password } })
    expect(signedIn.user.id).toBe(outcome.userId)
    await expect(
      auth.api.signInEmail({ body: { email: input.email, password: 'wrong password!!' } }),
    ).rejects.toMatchObject({ statusCode: 401 })
  })

  it('holds the new tenant for approval in SIGNUP_MODE=approve, and only then', async () => {
    const held = await signUpTenant(form(), { auth, db: database.db, signupMode: 'approve' })
    const open = await signUpTenant(form(), { auth, db: database.db, signupMode: 'verify' })
    if (held.kind !== 'created' || open.kind !== 'created') throw new Error('expected both created')
    const approved = async (tenantId: string) =>
      (await database.sql`select approved_at is not null as ok from tenants where id = ${tenantId}`)[0]?.ok
    expect(await approved(held.tenantId)).toBe(false)
    expect(await approved(open.tenantId)).toBe(true)
    expect(await findActingMembership(database.db, { userId: held.userId })).toMatchObject({
      tenantApproved: false,
    })
  })

  it('refuses a duplicate email next to the field and creates no second tenant', async () => {
    const first = form()
    await signUpTenant(first, { auth, db: database.db })
    const before = await countOf('tenants')
    const outcome = await signUpTenant(form({ email: first.email.toUpperCase() }), { auth, db: database.db })
    expect(outcome).toEqual({ kind: 'invalid', errors: { email: expect.stringMatching(/already exists/) } })
    expect(await countOf('tenants')).toBe(before)
  })

  it('names every bad field and creates nothing', async () => {
    const before = await countOf('users')
    const outcome = await signUpTenant(
      { company: ' ', name: '', email: 'not-an-email', password: 'short' },
      { auth, db: database.db },
    )
    expect(outcome.kind).toBe('invalid')
    if (outcome.kind !== 'invalid') return
    expect(Object.keys(outcome.errors).sort()).toEqual(['company', 'email', 'name', 'password'])
    expect(outcome.errors.password).toMatch(/at least 10/)
    expect(await signUpTenant(form({ password: 'x'.repeat(129) }), { auth, db: database.db })).toMatchObject({
      kind: 'invalid',
      errors: { password: expect.stringMatching(/at most 128/) },
    })
    expect(await countOf('users')).toBe(before)
  })

  it('creates the tenant and membership in one transaction: a failed membership leaves no tenant', async () => {
    const before = await countOf('tenants')
    await expect(
      createTenantWithOwner(database.db, { userId: 'no-such-user', tenantName: 'Orphan Inc' }),
    ).rejects.toThrow()
    expect(await countOf('tenants')).toBe(before)
    expect(await countOf('tenants', { name: 'Orphan Inc' })).toBe(0)
  })

  it('removes the user again when the tenant cannot be created, so the email can sign up later', async () => {
    const input = form()
    const failing = Object.create(database.db, {
      transaction: { value: () => Promise.reject(new Error('database went away')) },
    }) as typeof database.db
    await expect(signUpTenant(input, { auth, db: failing })).rejects.toThrow('database went away')
    expect(await countOf('users', { email: input.email })).toBe(0)

    const retried = await signUpTenant(input, { auth, db: database.db })
    expect(retried.kind).toBe('created')
  })

  it('acts for the session’s active tenant when the user is a member of it, else the oldest membership', async () => {
    const outcome = await signUpTenant(form(), { auth, db: database.db })
    if (outcome.kind !== 'created') throw new Error('sign-up failed')
    const [second] = await database.db.insert(tenants).values({ name: 'Second' }).returning()
    if (!second) throw new Error('no tenant')
    await database.db
      .insert(memberships)
      .values({ tenantId: second.id, userId: outcome.userId, role: 'member' })
    const [stranger] = await database.db.insert(tenants).values({ name: 'Stranger' }).returning()

    const acting = (preferredTenantId?: string) =>
      findActingMembership(database.db, { userId: outcome.userId, preferredTenantId })
    expect((await acting())?.tenantId).toBe(outcome.tenantId)
    expect(await acting(second.id)).toEqual({
      tenantId: second.id,
      tenantName: 'Second',
      role: 'member',
      tenantApproved: true,
    })
    // An active tenant the user does not belong to is ignored, never honoured.
    expect((await acting(stranger?.id))?.tenantId).toBe(outcome.tenantId)
  })
})

describe('sign-up throttling per client address', () => {
  it('refuses a burst from one address with the wait, creating nothing, while another address signs up', async () => {
    const limited = authWith(3, `${env.queuePrefix}:rl-burst`)
    const from = (address: string) => ({
      auth: limited,
      db: database.db,
      headers: new Headers({ [CLIENT_ADDRESS_HEADER]: address }),
    })
    const kinds: string[] = []
    for (let attempt = 0; attempt < 6; attempt++)
      kinds.push((await signUpTenant(form(), from('203.0.113.50'))).kind)
    expect(kinds).toEqual(['created', 'created', 'created', 'throttled', 'throttled', 'throttled'])

    const input = form()
    const refused = await signUpTenant(input, from('203.0.113.50'))
    expect(refused).toMatchObject({
      kind: 'throttled',
      message: expect.stringMatching(/Too many sign-ups.*minutes/),
    })
    if (refused.kind === 'throttled') expect(refused.retryAfterSeconds).toBeGreaterThan(3000)
    expect(await countOf('users', { email: input.email })).toBe(0)
    // Through auth.api straight: a 429 with Retry-After, as the HTTP route would answer.
    const error = await limited.api
      .signUpEmail({
        body: { name: 'Burst', email: `burst-${Date.now()}@example.test`, password: 'correct horse battery' },
        headers: new Headers({ [CLIENT_ADDRESS_HEADER]: '203.0.113.50' }),
      })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ statusCode: 429, body: { code: 'TOO_MANY_ATTEMPTS', limit: 'sign-up' } })
    expect(
      Number(new Headers((error as { headers: HeadersInit }).headers).get('retry-after')),
    ).toBeGreaterThan(3000)

    expect((await signUpTenant(form(), from('203.0.113.51'))).kind).toBe('created')
  })
})
